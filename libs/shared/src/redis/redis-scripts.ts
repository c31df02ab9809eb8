import { Inject, Injectable } from '@nestjs/common';
import { REDIS_CLIENT, type RedisClient } from './redis';

/** A script's call: its keys first, then its arguments. */
export type Script<T> = (...keysThenArguments: (string | number)[]) => Promise<T>;

/**
 * Bookkeeping shared by every process, kept by Lua scripts (each call one round trip, sent by its
 * SHA1 and loaded again when Redis lost it) and read by counting a sorted set. On a Redis Cluster a
 * script's keys must share a hash slot: a `{tag}` in each.
 */
@Injectable()
export class RedisScripts {
  constructor(@Inject(REDIS_CLIENT) private readonly redis: RedisClient) {}

  /** The script `lua`, known to the client as `name`, whose first `numberOfKeys` arguments are keys. */
  define<T>(name: string, numberOfKeys: number, lua: string): Script<T> {
    this.redis.defineCommand(name, { numberOfKeys, lua });
    const defined = (this.redis as unknown as Record<string, Script<T>>)[name]!;
    return defined.bind(this.redis);
  }

  /** The members of sorted set `key` scored from `min` to `max` (ZCOUNT's bounds: `(` excludes, `+inf`). */
  count(key: string, min: string, max: string): Promise<number> {
    return this.redis.zcount(key, min, max);
  }
}
