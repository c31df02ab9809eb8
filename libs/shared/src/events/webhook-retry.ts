/** How failed deliveries are retried (docs/contract.md §10.4). */
export interface RetryPolicy {
  /** The wait after the first failure; it doubles with each further one. */
  baseMs: number;
  maxMs: number;
  /** Retried this long after the first failure; a failure after that makes the delivery dead. */
  windowMs: number;
}

/**
 * The wait before the next attempt after `failures` failures: exponential, capped, with jitter
 * between half and the whole step so that many deliveries to one receiver do not retry in lockstep.
 */
export function retryDelayMs(failures: number, policy: RetryPolicy, random = Math.random): number {
  const step = Math.min(policy.baseMs * 2 ** Math.max(0, failures - 1), policy.maxMs);
  return Math.round(step / 2 + (random() * step) / 2);
}

/** When to try again after a failed attempt, or null when the retry window has passed (the delivery is dead). */
export function nextAttemptAfterFailure(
  failure: { failures: number; firstFailedAt: Date | null },
  now: Date,
  policy: RetryPolicy,
  random = Math.random,
): Date | null {
  const firstFailedAt = failure.firstFailedAt ?? now;
  if (now.getTime() - firstFailedAt.getTime() >= policy.windowMs) return null;
  return new Date(now.getTime() + retryDelayMs(failure.failures, policy, random));
}
