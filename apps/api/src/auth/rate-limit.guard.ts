import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { APP_CONFIG } from '@app/shared/config/config.module';
import type { AppConfig } from '@app/shared/config/config.schema';
import { ProblemException } from '@app/shared/http/problem';
import { RedisRateLimits } from '@app/shared/redis/redis-rate-limits';
import type { Actor } from '@app/shared/video/video-lifecycle';
import { callerId } from './caller-id';
import { RequestCost } from './request-cost';

/** The one quota policy, by the name the `RateLimit` field refers to it. */
const POLICY = 'default';

/**
 * Per-caller rate limit on `/api/**`, counted in Redis so the limit holds across any number of API
 * processes. Runs after authentication, so the caller is the token's subject, keyed by its hash: an
 * erased author's id is in no Redis key (docs/contract.md §10.4). While Redis is away, each process
 * falls back to counting on its own rather than refusing everyone.
 *
 * Every answer it counts states the limit in the IETF HTTPAPI draft's fields ("RateLimit header
 * fields for HTTP"), so a client can slow down before it is refused: `RateLimit-Policy` the quota,
 * `RateLimit` what is left of it and the seconds until the window resets; a 429 adds `Retry-After`.
 * A 401 leaves before this guard and carries neither: no caller is known, so no quota was counted.
 *
 * A request costs 1 point unless its route states its cost (`RequestCost`): a search costs by the
 * work it asks of the engine, so the quota bounds what a caller costs everyone else, not only how
 * often it calls.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  private readonly limiter: RateLimiterAbstract | null;
  private readonly policy: string;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    limits: RedisRateLimits,
    private readonly reflector: Reflector,
  ) {
    const options = { points: config.RATE_LIMIT_POINTS, duration: config.RATE_LIMIT_WINDOW_SECONDS };
    this.policy = `"${POLICY}";q=${options.points};w=${options.duration}`;
    this.limiter =
      config.RATE_LIMIT_POINTS === 0
        ? null
        : limits.limiter({
            ...options,
            keyPrefix: 'rate-limit',
            // A caller who has spent its quota is refused from memory until its window ends, so a
            // flood past the limit costs each process no Redis call per request.
            inMemoryBlockOnConsumed: config.RATE_LIMIT_POINTS,
          });
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest & { user?: Actor }>();
    if (!this.limiter || !request.user) return true;
    let allowed: boolean;
    let state: RateLimiterRes;
    try {
      // Never more than a whole window's quota, or such a request could never be served.
      const cost = this.reflector.get(RequestCost, context.getHandler())?.(request.query) ?? 1;
      state = await this.limiter.consume(callerId(request.user.sub), Math.min(cost, this.limiter.points));
      allowed = true;
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      state = rejection;
      allowed = false;
    }
    const seconds = Math.max(1, Math.ceil(state.msBeforeNext / 1000));
    // On the reply, not the answer: an error later in the request (400, 404) keeps them.
    void http
      .getResponse<FastifyReply>()
      .header('RateLimit-Policy', this.policy)
      .header('RateLimit', `"${POLICY}";r=${state.remainingPoints};t=${seconds}`);
    if (allowed) return true;
    throw new ProblemException(429, `Too many requests: try again in ${seconds} s.`, undefined, {
      'Retry-After': String(seconds),
    });
  }
}
