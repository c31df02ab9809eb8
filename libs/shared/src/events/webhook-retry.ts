import { jitteredBackoff, type Backoff } from '../util/backoff';

/** How failed deliveries are retried (docs/contract.md §10.4): `jitteredBackoff` steps, within a window. */
export interface RetryPolicy extends Backoff {
  /** Retried this long after the first failure; a failure after that makes the delivery dead. */
  windowMs: number;
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
  return new Date(now.getTime() + jitteredBackoff(failure.failures, policy, random));
}
