import autocannon from 'autocannon';
import { mergeMeasured, totalCpu, withCpu, type CpuSeconds, type MeasuredRun } from './cpu';
import { benchToken, floorPath } from './kit';
import { alternate, mapSides } from './order';
import { PAGE } from './plain-query';
import type { TimedRun } from './stats';
import { warmUntilSettled, type Settled, type WarmUpLimits } from './warm-up';

export interface HttpLoad {
  url: string;
  method?: 'GET' | 'POST' | 'DELETE';
  headers?: Record<string, string>;
  /** Path (and body) of the i-th request, so every request can differ. */
  request: (i: number) => { path: string; body?: string };
  concurrency: number;
  durationSeconds?: number;
  amount?: number;
}

/** A side's load in a comparison: its rounds set how long it runs. */
export type SideLoad = Omit<HttpLoad, 'durationSeconds' | 'amount'>;

/** GETs through the API at `url` as an admin, the i-th request on `path(i)`. */
export function throughApi(url: string, path: (i: number) => string, concurrency: number): SideLoad {
  return {
    url,
    headers: { authorization: `Bearer ${benchToken()}` },
    request: (i) => ({ path: path(i) }),
    concurrency,
  };
}

/** The API's searches for `queries`, one after the other and round again, a page each. */
export function apiSearches(url: string, queries: readonly string[], concurrency: number): SideLoad {
  const q = (i: number) => encodeURIComponent(queries[i % queries.length]!);
  return throughApi(url, (i) => `/api/videos/search?q=${q(i)}&limit=${PAGE}`, concurrency);
}

/** The same searches through a search floor (kit's `startSearchFloors`) at `url`. */
export function floorSearches(url: string, queries: readonly string[], concurrency: number): SideLoad {
  return { url, request: (i) => ({ path: floorPath(queries[i % queries.length]!) }), concurrency };
}

function options(load: HttpLoad): autocannon.Options {
  let i = 0;
  return {
    url: load.url,
    connections: load.concurrency,
    ...(load.amount ? { amount: load.amount } : { duration: load.durationSeconds ?? 10 }),
    requests: [
      {
        method: load.method ?? 'GET',
        headers: load.headers,
        setupRequest: (request) => {
          const next = load.request(i++);
          return { ...request, path: next.path, ...(next.body !== undefined ? { body: next.body } : {}) };
        },
      },
    ],
  };
}

/**
 * An HTTP load with autocannon, answering with every 2xx answer's latency (every other answer is an
 * error), so that rounds can be merged (`mergeRuns`): autocannon's own percentiles are whole
 * milliseconds, which at a median near 50 ms moves a latency ratio by 0.02, and its summary would
 * cost the load generator CPU inside the round. The time runs from the start to the last answer:
 * autocannon stops its clock only on its next one-second sample.
 */
export function timedHttpLoad(load: HttpLoad): Promise<TimedRun> {
  const latencies: number[] = [];
  const started = performance.now();
  let lastAnswer = started;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      { ...options(load), skipAggregateResult: true },
      (error: Error | null, result) =>
        error
          ? reject(error)
          : resolve({
              latencies,
              seconds: (lastAnswer - started) / 1000,
              errors: result.non2xx + result.errors + result.timeouts,
            }),
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      lastAnswer = performance.now();
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
    });
  });
}

/** Work started with each of a side's rounds and stopped when the round ends (a scraper, say). */
export type Alongside = () => { stop(): Promise<void> };

/** Runs `work` with `alongside` (if any) started before it and stopped after it, however it ends. */
export async function runBeside<T>(alongside: Alongside | undefined, work: () => Promise<T>): Promise<T> {
  const background = alongside?.();
  try {
    return await work();
  } finally {
    await background?.stop();
  }
}

/**
 * Each load as a side of `alternate`: one round of `seconds` with its `alongside` work, answering
 * with its latencies and the CPU each part used.
 */
function loadRounds<K extends string>(
  loads: Record<K, SideLoad>,
  { seconds, alongside }: { seconds: number; alongside?: (side: K) => Alongside | undefined },
): Record<K, () => Promise<TimedRun & { cpu: CpuSeconds }>> {
  return mapSides(
    loads,
    (load, name) => () =>
      runBeside(alongside?.(name), () => withCpu(() => timedHttpLoad({ ...load, durationSeconds: seconds }))),
  );
}

/**
 * Several loads measured in alternation (a, b, b, a, a, b…: `roundOrder`), each round `seconds`
 * long, so none of them always gets the warmer or the quieter minute of a shared machine. Each
 * load's rounds are merged: latency percentiles over every request, throughput over the summed
 * time, and the CPU seconds each part used in them. A side may run `alongside` work through each
 * of its rounds.
 */
export async function alternatingLoads<K extends string>(
  loads: Record<K, SideLoad>,
  {
    rounds,
    seconds,
    alongside,
  }: { rounds: number; seconds: number; alongside?: (side: K) => Alongside | undefined },
): Promise<Record<K, MeasuredRun>> {
  return mapSides(await alternate(loadRounds(loads, { seconds, alongside }), rounds), mergeMeasured);
}

/** The search step's warm-up, as its tables print it. */
export type WarmUp = Pick<Settled, 'seconds' | 'jitShare'>;

/**
 * Unmeasured rounds of every side in alternation (`alternate`, one round at a time), each side
 * answering with the CPU it used, until Elasticsearch's JIT compiler has settled
 * (`warmUntilSettled`, on the CPU of all the round's sides).
 */
export function warmAlternating<K extends string>(
  sides: Record<K, () => Promise<{ cpu: CpuSeconds }>>,
  limits: WarmUpLimits,
): Promise<Settled> {
  return warmUntilSettled(
    async () => totalCpu(Object.values<{ cpu: CpuSeconds }[]>(await alternate(sides, 1)).flat()),
    limits,
  );
}

/**
 * Runs the loads, unmeasured, in alternating rounds (`warmAlternating`) of 10 s at most, until
 * Elasticsearch's JVM has stopped compiling, after at least `minSeconds` (which also lets V8
 * optimise the API) and at most `maxSeconds`. A freshly started node spends minutes of search load
 * compiling; measured in that time, every round is slower than the next, and more so for the side
 * that runs first.
 */
export async function warmUp<K extends string>(
  loads: Record<K, SideLoad>,
  limits: WarmUpLimits,
): Promise<WarmUp> {
  const roundSeconds = Math.min(10, limits.minSeconds / 2);
  const { seconds, jitShare } = await warmAlternating(loadRounds(loads, { seconds: roundSeconds }), limits);
  return { seconds, jitShare };
}
