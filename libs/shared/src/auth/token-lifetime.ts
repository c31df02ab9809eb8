/**
 * How long a token may be valid (docs/contract.md §3): its `exp` must be a finite time at most
 * JWT_MAX_LIFETIME seconds ahead, so a leaked token stops working. jsonwebtoken takes any number,
 * `1e300` and the `Infinity` that `1e999` parses to included.
 */

/** Leeway for clocks that disagree a little between issuer and API (at most 30 s). */
export const CLOCK_TOLERANCE_SECONDS = 30;

/**
 * Whether a token's `exp` (seconds since the epoch) lies no further ahead than `maxLifetimeSeconds`,
 * with the clock leeway: an issuer whose clock runs a little ahead still issues the longest tokens.
 */
export function expiresWithinLifetime(
  exp: unknown,
  maxLifetimeSeconds: number,
  nowMs = Date.now(),
): exp is number {
  return (
    typeof exp === 'number' &&
    Number.isFinite(exp) &&
    exp <= nowMs / 1000 + maxLifetimeSeconds + CLOCK_TOLERANCE_SECONDS
  );
}

/** Why a development token of `ttlSeconds` cannot be signed, if it cannot: the API would refuse it. */
export function ttlProblem(ttlSeconds: number, maxLifetimeSeconds: number): string | undefined {
  return ttlSeconds > maxLifetimeSeconds
    ? `--ttl of ${ttlSeconds} s is longer than JWT_MAX_LIFETIME (${maxLifetimeSeconds} s): the API would refuse the token`
    : undefined;
}
