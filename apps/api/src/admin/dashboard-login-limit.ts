import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RedisRateLimits } from '@app/shared/redis/redis-rate-limits';

/** Wrong dashboard passwords one client address may send per window before it is refused. */
export const DASHBOARD_LOGIN_FAILURES = 10;
export const DASHBOARD_LOGIN_WINDOW_SECONDS = 15 * 60;

/**
 * Dashboard password attempts (HTTP Basic) per client address, each counted before it is checked
 * and given back when it was right, so what counts is wrong passwords; counted in Redis
 * like the API's rate limit, so the limit holds across API processes; while Redis is away each
 * process counts on its own. Only passwords are counted: they are what can be guessed, whereas a
 * token's signature cannot, and an expired `admin_token` cookie that Bull Board's page keeps
 * sending must not lock its admin out.
 */
export class DashboardLoginLimit {
  private readonly failures: RateLimiterAbstract;

  constructor(limits: RedisRateLimits) {
    this.failures = limits.limiter({
      points: DASHBOARD_LOGIN_FAILURES,
      duration: DASHBOARD_LOGIN_WINDOW_SECONDS,
      keyPrefix: 'dashboard-login-failures',
      // Once refused, an address is refused from memory until its window ends: a flood of guesses
      // costs no Redis call each. Not sooner, since a right password gives its attempt back.
      inMemoryBlockOnConsumed: DASHBOARD_LOGIN_FAILURES + 1,
    });
  }

  /**
   * Counts a password attempt from `address` before it is checked, so guesses sent together are
   * counted together: answers 0 when it may be checked, else the seconds until the address may try again.
   */
  async attempt(address: string): Promise<number> {
    try {
      await this.failures.consume(address);
      return 0;
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      return Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
    }
  }

  /** A right password gives its attempt back: only wrong ones count against the address. */
  async succeeded(address: string): Promise<void> {
    await this.failures.reward(address, 1);
  }
}
