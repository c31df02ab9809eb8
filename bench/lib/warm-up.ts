import type { CpuSeconds } from './cpu';

/** Share of Elasticsearch's CPU spent in its JIT compiler threads (0 when it used none). */
export function jitShare(cpu: CpuSeconds): number {
  return (cpu['elasticsearch-jit'] ?? 0) / Math.max(cpu['elasticsearch'] ?? 0, 0.01);
}

export interface Settled {
  /** Rounds run, each one of every side. */
  rounds: number;
  seconds: number;
  /** `jitShare` of the last round. */
  jitShare: number;
}

/** How long a warm-up runs: see `warmUntilSettled`. */
export interface WarmUpLimits {
  minRounds?: number;
  minSeconds: number;
  maxSeconds: number;
  /** 1 % unless given. */
  settledJitShare?: number;
}

/**
 * Runs `round` (one unmeasured round of every side, answering with the CPU its work used) until
 * Elasticsearch's JVM has stopped compiling: its JIT compiler used at most `settledJitShare` of
 * its CPU in the last round, after at least `minRounds` and `minSeconds` and at most `maxSeconds`
 * (a round started before `maxSeconds` runs to its end). A node that has just started, or has just
 * met a kind of work it had not compiled for, spends its first minutes of that work compiling;
 * measured then, every round is slower than the next. The minimums are for the Node processes,
 * which V8 optimises over their first thousands of requests or jobs, whatever Elasticsearch does.
 */
export async function warmUntilSettled(
  round: () => Promise<CpuSeconds>,
  { minRounds = 1, minSeconds, maxSeconds, settledJitShare = 0.01 }: WarmUpLimits,
  now: () => number = () => performance.now(),
): Promise<Settled> {
  const started = now();
  let rounds = 0;
  let seconds: number;
  let share: number;
  do {
    share = jitShare(await round());
    rounds += 1;
    seconds = (now() - started) / 1000;
  } while (seconds < maxSeconds && (rounds < minRounds || seconds < minSeconds || share > settledJitShare));
  return { rounds, seconds, jitShare: share };
}
