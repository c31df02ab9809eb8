import { connect } from 'node:net';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { layout, type ServicesConfig } from './config.ts';
import { launch, stopPidFile, waitReady, type ServerProcess } from './processes.ts';
import { fail, log, upLine } from './report.ts';
import { isLocalHost, parseUrl, redact } from './urls.ts';

export const REDIS_PATTERN = /redis-server/;

export interface RedisAddress {
  host: string;
  port: number;
  user: string;
  password: string;
}

/** The server REDIS_URL names, or the first of a cluster's nodes it lists. */
export function redisAddress(url: string): RedisAddress {
  const parsed = parseUrl(url.split(',')[0]!.trim());
  return {
    host: parsed.host,
    port: Number(parsed.port || 6379),
    user: parsed.user,
    password: parsed.password,
  };
}

function bulk(...words: string[]): string {
  return `*${words.length}\r\n${words.map((word) => `$${Buffer.byteLength(word)}\r\n${word}\r\n`).join('')}`;
}

/**
 * A Redis answers there: PONG, or a refusal of the login (NOAUTH, WRONGPASS), since starting
 * another server would not help. Spoken in RESP over a socket, so no client needs installing.
 */
export function redisAnswers(
  { host, port, user, password }: RedisAddress,
  timeoutMs = 3_000,
): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect({ host, port });
    let reply = '';
    const finish = (answers: boolean) => {
      socket.destroy();
      done(answers);
    };
    socket.setTimeout(timeoutMs, () => finish(false));
    socket.once('error', () => finish(false));
    socket.once('close', () => finish(false));
    socket.once('connect', () => {
      // Credentials only when there are some: an empty AUTH is itself an error reply.
      const auth = password ? (user ? bulk('AUTH', user, password) : bulk('AUTH', password)) : '';
      socket.write(auth + bulk('PING'));
    });
    socket.on('data', (chunk: Buffer) => {
      reply += chunk.toString();
      if (/^\+PONG|^-(NOAUTH|WRONGPASS)/m.test(reply)) finish(true);
      else if (/^-/m.test(reply) && !password) finish(false);
    });
  });
}

export interface RedisServerOptions extends RedisAddress {
  dir: string;
  logFile: string;
  daemon?: boolean;
  pidFile?: string;
  /** More of `redis-server`'s options (`--cluster-enabled yes`, …). */
  extraArgs?: string[];
}

/** Starts `redis-server` with nothing persisted, and waits until it answers. */
export async function startRedisServer(options: RedisServerOptions): Promise<ServerProcess> {
  const { host, port, password, dir, logFile } = options;
  mkdirSync(dir, { recursive: true });
  const bind = host === '127.0.0.1' || host === 'localhost' ? '127.0.0.1 -::1' : host;
  const args = ['--port', String(port), '--bind', bind, '--save', '', '--appendonly', 'no', '--dir', dir];
  if (password) args.push('--requirepass', password);
  args.push(...(options.extraArgs ?? []));
  const server = launch({
    command: 'redis-server',
    args,
    logFile,
    daemon: options.daemon,
    pidFile: options.pidFile,
  });
  await waitReady(server, `Redis did not come up on ${host}:${port}`, () => redisAnswers(options), {
    timeoutMs: 30_000,
    logs: [logFile],
  });
  return server;
}

export async function redisUp(config: ServicesConfig): Promise<string> {
  const address = redisAddress(config.redisUrl);
  if (await redisAnswers(address)) return upLine('redis', 'reused', redact(config.redisUrl));
  const paths = layout(config);
  if (config.redisCluster) {
    fail(
      `the Redis Cluster at ${redact(config.redisUrl)} is not answering; services:up starts only a single Redis (docs/operations.md, "Redis Cluster")`,
    );
  }
  if (!isLocalHost(address.host)) {
    fail(
      `Redis is not answering at ${address.host}:${address.port}, which is not a local address; start it there or point REDIS_URL at a reachable server`,
    );
  }
  log(`starting redis-server on ${address.host}:${address.port}`);
  await startRedisServer({
    ...address,
    dir: paths.redisDir,
    logFile: join(paths.logs, 'redis.log'),
    daemon: true,
    pidFile: paths.redisPid,
  });
  return upLine('redis', 'started', redact(config.redisUrl));
}

export function redisDown(config: ServicesConfig): Promise<string> {
  const file = layout(config).redisPid;
  if (!existsSync(file)) return Promise.resolve('redis: left running (not started by services:up)');
  return stopPidFile('redis', file, REDIS_PATTERN, 15);
}
