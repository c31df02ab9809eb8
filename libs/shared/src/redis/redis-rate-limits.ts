import { Inject, Injectable } from '@nestjs/common';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { REDIS_CLIENT, type RedisClient } from './redis';

/** One limit: `points` per key per window of `duration` seconds, its keys `<keyPrefix>:<key>`. */
export interface RedisRateLimit {
  keyPrefix: string;
  points: number;
  duration: number;
  /** Points after which a key is refused from memory until its window ends, with no Redis call each. */
  inMemoryBlockOnConsumed: number;
}

/**
 * Rate limits counted in Redis, so that a limit holds across any number of processes. While Redis
 * is away, each process counts on its own, with the same quota, rather than refusing everyone.
 */
@Injectable()
export class RedisRateLimits {
  constructor(@Inject(REDIS_CLIENT) private readonly redis: RedisClient) {}

  limiter({ points, duration, ...options }: RedisRateLimit): RateLimiterAbstract {
    return new RateLimiterRedis({
      points,
      duration,
      ...options,
      storeClient: this.redis,
      insuranceLimiter: new RateLimiterMemory({ points, duration }),
    });
  }
}
