import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { RedisClient } from '@app/shared/redis/redis';

/** Wrong dashboard passwords one client address may send per window before it is refused. */
export const DASHBOARD_LOGIN_FAILURES = 10;
export const DASHBOARD_LOGIN_WINDOW_SECONDS = 15 * 60;

/**
 * Failed dashboard logins (HTTP Basic with wrong credentials) per client address, counted in Redis
 * like the API's rate limit, so the limit holds across API processes; while Redis is away each
 * process counts on its own. Only passwords are counted: they are what can be guessed, whereas a
 * token's signature cannot, and an expired `admin_token` cookie that Bull Board's page keeps
 * sending must not lock its admin out.
 */
export class DashboardLoginLimit {
  private readonly failures: RateLimiterRedis;

  constructor(redis: RedisClient) {
    const options = { points: DASHBOARD_LOGIN_FAILURES, duration: DASHBOARD_LOGIN_WINDOW_SECONDS };
    this.failures = new RateLimiterRedis({
      ...options,
      storeClient: redis,
      keyPrefix: 'dashboard-login-failures',
      insuranceLimiter: new RateLimiterMemory(options),
    });
  }

  /** Seconds until `address` may try a password again; 0 when it may now. */
  async secondsBlocked(address: string): Promise<number> {
    const state = await this.failures.get(address);
    if (!state || state.consumedPoints < DASHBOARD_LOGIN_FAILURES) return 0;
    return Math.max(1, Math.ceil(state.msBeforeNext / 1000));
  }

  async failed(address: string): Promise<void> {
    try {
      await this.failures.consume(address);
    } catch (rejection) {
      // Over the limit already: the address is refused until the window ends either way.
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
    }
  }
}
