import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { startRedisServer } from '../../scripts/services/redis.ts';
import type { ServerProcess } from '../../scripts/services/processes.ts';
import { freePort } from './processes';

export interface OwnRedis {
  url: string;
  /** SIGKILL, as a crash would: nothing is persisted, so it starts again empty. */
  stop(): Promise<void>;
  start(): Promise<void>;
  flushAll(): Promise<void>;
}

/**
 * A Redis server of the test's own, started as `services:up` starts one (scripts/services/redis.ts)
 * on a free loopback port, so stopping or flushing it touches nothing else.
 */
export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'videos-redis-'));
  const url = `redis://127.0.0.1:${port}`;
  let server: ServerProcess | undefined;
  const own: OwnRedis = {
    url,
    async start() {
      if (server && !server.exited()) return;
      server = await startRedisServer({
        host: '127.0.0.1',
        port,
        user: '',
        password: '',
        dir,
        logFile: join(dir, 'redis.log'),
      });
    },
    async stop() {
      await server?.stop('SIGKILL', 0);
    },
    async flushAll() {
      const client = new Redis(url);
      try {
        await client.flushall();
      } finally {
        client.disconnect();
      }
    },
  };
  await own.start();
  // The directory holds only its log: nothing is saved.
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return own;
}
