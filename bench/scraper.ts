/**
 * Scrapes `GET <url>/metrics` `<perSecond>` times a second until SIGTERM, whether or not the last
 * scrape was answered, as several Prometheus servers scraping one target would; then prints one
 * JSON line: the latency of every answered scrape (ms) and how many failed or were skipped. A
 * process of its own, so that its requests and their bodies cost the load generator nothing.
 */
const [url, rate] = process.argv.slice(2);
const perSecond = Number(rate);
/** Scrapes beyond this many unanswered are skipped: a stalled API must not pile them up. */
const MAX_IN_FLIGHT = 64;

const latencies: number[] = [];
let errors = 0;
const inFlight = new Set<Promise<void>>();

async function scrape(): Promise<void> {
  const started = performance.now();
  try {
    const response = await fetch(`${url}/metrics`);
    await response.text();
    if (response.ok) latencies.push(performance.now() - started);
    else errors += 1;
  } catch {
    errors += 1;
  }
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
  // Exits once written: fetch's idle keep-alive connections would hold the process a while.
  void Promise.all(inFlight).then(() =>
    process.stdout.write(`${JSON.stringify({ latencies, errors })}\n`, () => process.exit(0)),
  );
});
