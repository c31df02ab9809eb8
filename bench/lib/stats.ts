import { setTimeout as sleep } from 'node:timers/promises';

/** Latency percentiles and throughput of one measured run. */
export interface RunStats {
  requests: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
  errors: number;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export function summarize(latenciesMs: number[], seconds: number, errors = 0): RunStats {
  const sorted = [...latenciesMs].sort((a, b) => a - b);
  return {
    requests: sorted.length,
    seconds,
    perSecond: sorted.length / seconds,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    errors,
  };
}

/** A run's latencies, kept so that several rounds of one side can be merged (`summarize` them all). */
export interface TimedRun {
  latencies: number[];
  seconds: number;
  errors: number;
}

/** Rounds of one side as one run: percentiles over every call, the rate over the summed time. */
export function mergeRuns(runs: TimedRun[]): RunStats {
  return summarize(
    runs.flatMap((run) => run.latencies),
    runs.reduce((sum, run) => sum + run.seconds, 0),
    runs.reduce((sum, run) => sum + run.errors, 0),
  );
}

/**
 * Runs `task` from `concurrency` loops until `durationMs` has passed (or `total` tasks ran),
 * timing each call: the same closed-loop model autocannon uses, for baselines that are not HTTP.
 */
export async function closedLoop(
  task: (i: number) => Promise<void>,
  options: { concurrency: number; durationMs?: number; total?: number },
): Promise<RunStats> {
  const run = await timedLoop(task, options);
  return summarize(run.latencies, run.seconds, run.errors);
}

/**
 * Calls `task` over and over from `concurrency` loops, `pauseMs` apart, until `done` settles: the
 * calls' latencies. For a load beside work whose length is not known before it ends.
 */
export async function callsUntil(
  done: Promise<unknown>,
  task: () => Promise<unknown>,
  { concurrency = 1, pauseMs = 0 }: { concurrency?: number; pauseMs?: number } = {},
): Promise<number[]> {
  let running = true;
  done.then(
    () => (running = false),
    () => (running = false),
  );
  const latencies: number[] = [];
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (running) {
        const started = performance.now();
        await task();
        latencies.push(performance.now() - started);
        if (pauseMs > 0) await sleep(pauseMs);
      }
    }),
  );
  return latencies;
}

/** `closedLoop`, answering with every successful call's latency instead of their percentiles. */
export async function timedLoop(
  task: (i: number) => Promise<void>,
  { concurrency, durationMs, total }: { concurrency: number; durationMs?: number; total?: number },
): Promise<TimedRun> {
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const started = performance.now();
  const deadline = durationMs === undefined ? Infinity : started + durationMs;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline && (total === undefined || next < total)) {
        const i = next++;
        const t0 = performance.now();
        try {
          await task(i);
          latencies.push(performance.now() - t0);
        } catch {
          errors += 1;
        }
      }
    }),
  );
  return { latencies, seconds: (performance.now() - started) / 1000, errors };
}
