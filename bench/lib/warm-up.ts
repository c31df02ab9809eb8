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

/**
 * Runs `round` (one unmeasured round of every side, answering with the CPU its work used) until
 * Elasticsearch's JVM has stopped compiling: its JIT compiler used at most `settledJitShare` of
 * its CPU in the last round, after at least `minSeconds` and at most `maxSeconds` (a round started
 * before `maxSeconds` runs to its end). A node that has just started, or has just met a kind of
 * work it had not compiled for, spends its first minutes of that work compiling; measured then,
 * every round is slower than the next.
 */
export async function warmUntilSettled(
  round: () => Promise<CpuSeconds>,
  {
    minSeconds,
    maxSeconds,
    settledJitShare,
  }: { minSeconds: number; maxSeconds: number; settledJitShare: number },
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
  } while (seconds < maxSeconds && (seconds < minSeconds || share > settledJitShare));
  return { rounds, seconds, jitShare: share };
}
