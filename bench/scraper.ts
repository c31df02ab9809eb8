/**
 * Scrapes `GET <url>/metrics` `<perSecond>` times a second until SIGTERM, whether or not the last
 * scrape was answered, as several Prometheus servers scraping one target would; then prints one
 * JSON line: the latency of every answered scrape (ms) and how many failed or were skipped. A
 * process of its own, so that its requests and their bodies cost the load generator nothing.
 */
import { Agent, get } from 'node:http';

const [url, rate] = process.argv.slice(2);
const perSecond = Number(rate);
/** Scrapes beyond this many unanswered are skipped: a stalled API must not pile them up. */
const MAX_IN_FLIGHT = 64;

const latencies: number[] = [];
let errors = 0;
const inFlight = new Set<Promise<void>>();

/**
 * Connections kept open, as Prometheus keeps them; plain node:http, which reads an answer for a
 * fraction of fetch's CPU: the scraper shares the machine's cores with what it measures, so its own
 * cost would show in the search's latency as if the API had spent it.
 */
const agent = new Agent({ keepAlive: true, maxSockets: MAX_IN_FLIGHT });

function scrape(): Promise<void> {
  const started = performance.now();
  return new Promise((done) => {
    const request = get(`${url}/metrics`, { agent }, (response) => {
      response.on('end', () => {
        if (response.statusCode === 200) latencies.push(performance.now() - started);
        else errors += 1;
        done();
      });
      // The body is not needed: it is drained without being decoded or kept.
      response.resume();
    });
    request.on('error', () => {
      errors += 1;
      done();
    });
  });
}

const started = performance.now();
let due = 0;
// Timers drift late on a busy machine: each tick sends what the elapsed time calls for.
const timer = setInterval(() => {
  const target = Math.floor(((performance.now() - started) / 1000) * perSecond);
  for (; due < target; due += 1) {
    if (inFlight.size >= MAX_IN_FLIGHT) {
      errors += 1;
      continue;
    }
    const sent = scrape().finally(() => inFlight.delete(sent));
    inFlight.add(sent);
  }
}, 1000 / perSecond);

process.once('SIGTERM', () => {
  clearInterval(timer);
  // Exits once written: idle keep-alive connections would hold the process a while.
  void Promise.all(inFlight).then(() =>
    process.stdout.write(`${JSON.stringify({ latencies, errors })}\n`, () => process.exit(0)),
  );
});
