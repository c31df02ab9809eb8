import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { APP_CONFIG } from '@app/shared/config/config.module';
import type { AppConfig } from '@app/shared/config/config.schema';
import { ProblemException } from '@app/shared/http/problem';
import { REDIS_CLIENT } from '@app/shared/redis/redis';
import type { Actor } from '@app/shared/video/video-lifecycle';

/**
 * Per-caller rate limit on `/api/**`, counted in Redis so the limit holds across any number of API
 * processes. Runs after authentication, so the caller is the token's subject. While Redis is
 * away, each process falls back to counting on its own rather than refusing everyone.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  private readonly limiter: RateLimiterRedis | null;

  constructor(@Inject(APP_CONFIG) config: AppConfig, @Inject(REDIS_CLIENT) redis: Redis) {
    const options = { points: config.RATE_LIMIT_POINTS, duration: config.RATE_LIMIT_WINDOW_SECONDS };
    this.limiter =
      config.RATE_LIMIT_POINTS === 0
        ? null
        : new RateLimiterRedis({
            ...options,
            storeClient: redis,
            keyPrefix: 'rate-limit',
            insuranceLimiter: new RateLimiterMemory(options),
          });
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest & { user?: Actor }>();
    if (!this.limiter || !request.user) return true;
    try {
      await this.limiter.consume(request.user.sub);
      return true;
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      const seconds = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      throw new ProblemException(429, `Too many requests: try again in ${seconds} s.`, undefined, {
        'Retry-After': String(seconds),
      });
    }
  }
}
