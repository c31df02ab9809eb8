/** How far apart retries go: the first wait, doubled after each further failure, up to a ceiling. */
export interface Backoff {
  /** The wait after the first failure. */
  baseMs: number;
  /** No wait is longer than this. */
  maxMs: number;
}

/**
 * The wait before the next try after `failures` failures: exponential and capped, with jitter
 * between half and the whole step, so that many retries of the same kind (deletions against a
 * struggling store, deliveries to one receiver) do not come back in lockstep.
 */
export function jitteredBackoff(
  failures: number,
  { baseMs, maxMs }: Backoff,
  random: () => number = Math.random,
): number {
  const step = Math.min(baseMs * 2 ** Math.max(0, failures - 1), maxMs);
  return Math.round(step / 2 + (random() * step) / 2);
}
