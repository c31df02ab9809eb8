import { ENTRY, rssKb, runProcess, sleep } from '../processes';
import { startOwnRedis } from '../redis-server';
import { startSystem, token, type System } from '../system';
import { openTestContext, type TestContext } from '../test-context';
import { runLoops, send, tally, type Sent } from '../traffic';
import type { ScenarioReport } from './report';

export interface SoakOptions {
  seconds: number;
  /** Requests started per second (a delete-and-restore pair counts as one step). */
  rate: number;
  concurrency: number;
  /** Videos imported from the sample (data/pyvideo.jsonl.gz) before the run. */
  videos: number;
  /** Shares of the run that are warm-up and each compared window (RSS_RULE unless given). */
  warmup?: number;
  window?: number;
}

/**
 * How RSS stability is judged: the first 20% of the run is warm-up; the baseline is the highest RSS
 * sampled over the next 10% of the run, the end the highest over the last 10%; stable means the end
 * is at most 15% above the baseline. Peaks, not means: under steady load RSS climbs until a
 * collection and then drops by a third, in cycles of tens of seconds, so a window's mean depends on
 * where in the cycle it falls while its peak does not; a leak lifts every peak. A drop is not
 * instability. For the ten-minute run: the peak of minute 3 against the peak of minute 10.
 * (A short run may take other shares: see SoakOptions.)
 */
export const RSS_RULE = { warmup: 0.2, window: 0.1, tolerance: 0.15 };

interface RssSeries {
  at: number[];
  kb: number[];
}

/** Baseline and end peaks of a series over a run that started at `start` and lasted `ms`. */
export function rssVerdict(
  series: RssSeries,
  start: number,
  ms: number,
  { warmup, window }: { warmup: number; window: number },
) {
  const inWindow = (from: number, to: number) =>
    series.kb.filter((_, i) => series.at[i]! >= start + from * ms && series.at[i]! <= start + to * ms);
  const baseline = Math.max(...inWindow(warmup, warmup + window));
  const end = Math.max(...inWindow(1 - window, 1));
  const change = end / baseline - 1;
  return {
    baselineMb: baseline / 1024,
    endMb: end / 1024,
    maxMb: Math.max(...series.kb) / 1024,
    change,
    stable: Number.isFinite(change) && change <= RSS_RULE.tolerance,
  };
}

/** Searches as users write them, built from the imported titles, authors and dates. */
function queryMix(rows: { title: string; author_id: string; published_at: Date | null }[]): string[] {
  const queries: string[] = [];
  for (const row of rows) {
    const words = row.title.split(/[^\p{L}\p{N}]+/u).filter((w) => w.length >= 3);
    if (words.length === 0) continue;
    const word = words[Math.floor(Math.random() * words.length)]!;
    const pair = words.slice(0, 2).join(' ');
    const year = row.published_at ? new Date(row.published_at).getUTCFullYear() : 2020;
    const q = (text: string) => `q=${encodeURIComponent(text)}`;
    queries.push(
      q(word),
      q(word),
      q(pair),
      q(row.title),
      `${q(word)}&authorId=${encodeURIComponent(row.author_id)}`,
      `${q(word)}&dateFrom=${year}-01-01&dateTo=${year}-12-31`,
      `${q(word)}&page=2&limit=10`,
    );
  }
  return queries.map((query) => `/api/videos/search?${query}`);
}

/**
 * Scenario 7: mixed traffic against one API and one worker (on the shared MySQL, Elasticsearch
 * and bucket; a Redis of their own so no other checkout's worker takes their jobs): 90% searches,
 * 10% soft delete + restore pairs, so the data stays. Every answer must be 2xx, and the API's and
 * the worker's RSS must stay within RSS_RULE after warm-up.
 */
export async function soak(options: SoakOptions): Promise<ScenarioReport> {
  const redis = await startOwnRedis();
  let context: TestContext | undefined;
  let system: System | undefined;
  try {
    context = await openTestContext();
    await context.reset();
    const imported = await runProcess(ENTRY.cli, [
      'import',
      '--limit',
      String(options.videos),
      '--no-progress',
    ]);
    if (imported.code !== 0) throw new Error(`import failed: ${imported.output.slice(-2_000)}`);
    const rows: { id: string; title: string; author_id: string; published_at: Date | null }[] =
      await context.dataSource.query('SELECT id, title, author_id, published_at FROM videos');
    const queries = queryMix(rows);
    system = await startSystem({
      REDIS_URL: redis.url,
      PURGE_SWEEP_INTERVAL_MS: '5000',
      RECONCILE_INTERVAL_MS: '60000',
    });
    const api = system.api;
    const pids = { api: system.processes[0]!.child.pid!, worker: system.processes[1]!.child.pid! };
    const bearer = token('soak', ['admin']);

    const ms = options.seconds * 1_000;
    const start = Date.now();
    const ends = start + ms;
    const sent: Sent[] = [];
    const rss: Record<'api' | 'worker', RssSeries> = { api: { at: [], kb: [] }, worker: { at: [], kb: [] } };
    const sampleEveryMs = Math.max(1_000, ms / 300);
    const sampling = (async () => {
      while (Date.now() < ends) {
        for (const name of ['api', 'worker'] as const) {
          rss[name].at.push(Date.now());
          rss[name].kb.push(rssKb(pids[name]));
        }
        await sleep(sampleEveryMs);
      }
    })();
    await runLoops({
      concurrency: options.concurrency,
      ratePerSecond: options.rate,
      until: () => Date.now() >= ends,
      step: async () => {
        if (Math.random() < 0.9) {
          const path = queries[Math.floor(Math.random() * queries.length)]!;
          sent.push(await send('search', 'GET', api, path, bearer));
          return;
        }
        const id = rows[Math.floor(Math.random() * rows.length)]!.id;
        sent.push(await send('delete', 'DELETE', api, `/api/videos/${id}`, bearer));
        sent.push(await send('restore', 'POST', api, `/api/videos/${id}/restore`, bearer));
      },
    });
    await sampling;

    const errors = sent.filter((s) => s.status < 200 || s.status > 299);
    const latencies = sent.map((s) => s.doneAt - s.sentAt).sort((a, b) => a - b);
    const p = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
    const rule = { warmup: options.warmup ?? RSS_RULE.warmup, window: options.window ?? RSS_RULE.window };
    const apiRss = rssVerdict(rss.api, start, ms, rule);
    const workerRss = rssVerdict(rss.worker, start, ms, rule);
    const notActive: { n: string }[] = await context.dataSource.query(
      "SELECT COUNT(*) AS n FROM videos WHERE state <> 'active'",
    );
    const left: { n: string }[] = await context.dataSource.query('SELECT COUNT(*) AS n FROM videos');
    const alive = system.processes.every((p) => p.child.exitCode === null && p.child.signalCode === null);
    const describeRss = (name: string, v: ReturnType<typeof rssVerdict>) =>
      `${name} RSS peak ${v.baselineMb.toFixed(0)} → ${v.endMb.toFixed(0)} MB (${v.change >= 0 ? '+' : ''}${(v.change * 100).toFixed(1)}%; highest ${v.maxMb.toFixed(0)})`;
    const violations = [
      ...errors
        .slice(0, 20)
        .map((s) => `${s.method} ${s.path} → ${s.status} ${JSON.stringify(s.body)}`.slice(0, 300)),
      ...(errors.length > 20 ? [`… and ${errors.length - 20} more errors`] : []),
      ...(apiRss.stable ? [] : [`API RSS not stable: ${describeRss('API', apiRss)}`]),
      ...(workerRss.stable ? [] : [`worker RSS not stable: ${describeRss('worker', workerRss)}`]),
      ...(Number(notActive[0]!.n) === 0 ? [] : [`${notActive[0]!.n} videos not active after every restore`]),
      ...(Number(left[0]!.n) === rows.length ? [] : [`${left[0]!.n} of ${rows.length} videos left`]),
      ...(alive ? [] : ['the API or the worker exited']),
    ];
    const searches = sent.filter((s) => s.kind === 'search');
    return {
      load:
        `${options.seconds} s at ${options.rate} steps/s (concurrency ${options.concurrency}) over ${rows.length} sample videos: ` +
        `${searches.length} searches, ${(sent.length - searches.length) / 2} soft delete + restore pairs`,
      faults: 'none (duration)',
      expected: `zero errors; API and worker RSS at most ${RSS_RULE.tolerance * 100}% above the baseline (peak of the last ${rule.window * 100}% of the run vs the ${rule.window * 100}% after a ${rule.warmup * 100}% warm-up)`,
      observed:
        `${sent.length} requests: ${tally(sent)}; p50 ${p(0.5)} ms, p99 ${p(0.99)} ms; ` +
        `${describeRss('API', apiRss)}; ${describeRss('worker', workerRss)}`,
      violations,
    };
  } finally {
    await system?.stop();
    await context?.close();
    await redis.stop();
  }
}
