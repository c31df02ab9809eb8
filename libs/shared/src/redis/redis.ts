import type { ConnectionOptions } from 'bullmq';
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import { commaItems } from '../util/comma-items';

/**
 * Injection token for the one Redis connection of a process. Only this folder's operations inject
 * it (readiness, rate limits, scripts, streams); the lint refuses it elsewhere.
 */
export const REDIS_CLIENT = Symbol('REDIS_CLIENT');

/** A connection to one Redis server or to a Redis Cluster: the same commands on either. */
export type RedisClient = Redis | Cluster;

/** Where Redis is (the configuration's REDIS_URL and REDIS_CLUSTER): one server, or some of a cluster's nodes. */
export interface RedisConfig {
  REDIS_URL: string;
  REDIS_CLUSTER?: boolean;
}

/** The URLs REDIS_URL names, in order: one, or a cluster's seed nodes separated by commas. */
export function redisUrls(redisUrl: string): URL[] {
  return commaItems(redisUrl).map((part) => new URL(part));
}

/** A URL's server and login; every node of a cluster is reached with the first URL's login and TLS. */
function serverOptions(url: URL) {
  return {
    host: url.hostname,
    port: url.port ? Number(url.port) : 6379,
    username: url.username ? decodeURIComponent(url.username) : undefined,
    password: url.password ? decodeURIComponent(url.password) : undefined,
    tls: url.protocol === 'rediss:' ? {} : undefined,
  };
}

function cluster(config: RedisConfig, redisOptions: RedisOptions, options: ClusterOptions = {}): Cluster {
  const [first, ...rest] = redisUrls(config.REDIS_URL).map(serverOptions);
  const { username, password, tls } = first!;
  const nodes = [first!, ...rest].map(({ host, port }) => ({ host, port }));
  return new Cluster(nodes, { ...options, redisOptions: { username, password, tls, ...redisOptions } });
}

/**
 * A connection that fails fast while Redis is down instead of queueing commands. On a cluster, a
 * command that meets a failover is retried once the new primary is known (`MOVED`, a refresh of
 * the slots), within the same bound.
 */
export function createRedisClient(config: RedisConfig): RedisClient {
  const redisOptions: RedisOptions = { maxRetriesPerRequest: 1, connectTimeout: 3_000 };
  const client: RedisClient = config.REDIS_CLUSTER
    ? cluster(config, redisOptions, { enableOfflineQueue: false })
    : new Redis(config.REDIS_URL, { ...redisOptions, enableOfflineQueue: false });
  // An outage shows in readiness and in the failing call; without a listener ioredis also prints each retry.
  client.on('error', () => undefined);
  return client;
}

/**
 * BullMQ's connection: blocking commands must wait forever, not fail. For one server, options
 * from which BullMQ makes (and closes) its own connections; for a cluster, a client of the
 * caller's, which BullMQ shares or duplicates but never closes (`closeRedisClient` does).
 */
export function bullConnection(config: RedisConfig): ConnectionOptions {
  if (config.REDIS_CLUSTER) return cluster(config, { maxRetriesPerRequest: null });
  const url = redisUrls(config.REDIS_URL)[0]!;
  return {
    ...serverOptions(url),
    db: url.pathname.length > 1 ? Number(url.pathname.slice(1)) : 0,
    maxRetriesPerRequest: null,
  };
}

/**
 * Closes a client so that nothing of it keeps the process alive. A connection still being made is
 * let finish first (QUIT cannot be sent before, and a socket ended half-open lingers for seconds);
 * with Redis away, QUIT fails and the client is stopped from reconnecting.
 */
export async function closeRedisClient(client: RedisClient): Promise<void> {
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
