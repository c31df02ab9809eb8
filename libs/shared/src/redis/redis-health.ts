import { Inject, Injectable } from '@nestjs/common';
import { REDIS_CLIENT, type RedisClient } from './redis';

/** Whether Redis answers, for readiness. */
@Injectable()
export class RedisHealth {
  constructor(@Inject(REDIS_CLIENT) private readonly redis: RedisClient) {}

  /** Resolves once Redis answered a PING; rejects at once while it is away (the client queues nothing). */
  async ping(): Promise<void> {
    await this.redis.ping();
  }
}
