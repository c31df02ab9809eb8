import type { ConnectionOptions } from 'bullmq';
import { Redis } from 'ioredis';

/** Injection token for the Redis connection used by health checks and small bookkeeping. */
export const REDIS_CLIENT = Symbol('REDIS_CLIENT');

/** Options BullMQ needs on its connections: blocking commands must wait forever, not fail. */
export function bullConnection(redisUrl: string): ConnectionOptions {
  const url = new URL(redisUrl);
  return {
    host: url.hostname,
    port: url.port ? Number(url.port) : 6379,
    username: url.username ? decodeURIComponent(url.username) : undefined,
    password: url.password ? decodeURIComponent(url.password) : undefined,
    db: url.pathname.length > 1 ? Number(url.pathname.slice(1)) : 0,
    tls: url.protocol === 'rediss:' ? {} : undefined,
    maxRetriesPerRequest: null,
  };
}

/** A connection that fails fast while Redis is down instead of queueing commands. */
export function createRedisClient(redisUrl: string): Redis {
  const client = new Redis(redisUrl, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    connectTimeout: 3_000,
  });
  // An outage shows in readiness and in the failing call; without a listener ioredis also prints each retry.
  client.on('error', () => undefined);
  return client;
}

/**
 * Closes a client so that nothing of it keeps the process alive. A connection still being made is
 * let finish first (QUIT cannot be sent before, and a socket ended half-open lingers for seconds);
 * with Redis away, QUIT fails and the client is stopped from reconnecting.
 */
export async function closeRedisClient(client: Redis): Promise<void> {
  if (client.status === 'connecting' || client.status === 'connect') {
    await new Promise<void>((settled) => {
      const done = () => {
        for (const event of ['ready', 'error', 'end']) client.off(event, done);
        settled();
      };
      for (const event of ['ready', 'error', 'end']) client.once(event, done);
    });
  }
  await client.quit().catch(() => client.disconnect());
}
