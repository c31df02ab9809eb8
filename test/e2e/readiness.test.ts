import { spawn, type ChildProcess } from 'node:child_process';
import {
  ENTRY,
  freePort,
  startProcess,
  waitFor,
  waitForStatus,
  type RunningProcess,
} from '../support/processes';

/**
 * A Redis of this test's own, so stopping it takes nothing away from the other tests: the API
 * and the worker must turn not-ready when it stops and ready again when it returns.
 */
function startRedis(port: number): ChildProcess {
  return spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
}

async function stopRedis(redis: ChildProcess): Promise<void> {
  if (redis.exitCode !== null) return;
  const exited = new Promise((done) => redis.once('exit', done));
  redis.kill('SIGKILL');
  await exited;
}

interface Readiness {
  status: string;
  details: Record<string, { status: string }>;
}

async function readiness(url: string): Promise<{ code: number; body: Readiness }> {
  const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  return { code: response.status, body: (await response.json()) as Readiness };
}

describe('readiness follows the dependencies', () => {
  let redisPort: number;
  let redis: ChildProcess;
  const processes: RunningProcess[] = [];
  const urls: string[] = [];

  beforeAll(async () => {
    redisPort = await freePort();
    redis = startRedis(redisPort);
    const apiPort = await freePort();
    const workerPort = await freePort();
    const env = { REDIS_URL: `redis://127.0.0.1:${redisPort}` };
    processes.push(startProcess(ENTRY.api, { ...env, PORT: String(apiPort) }));
    processes.push(startProcess(ENTRY.worker, { ...env, WORKER_PORT: String(workerPort) }));
    urls.push(`http://127.0.0.1:${apiPort}/health/ready`, `http://127.0.0.1:${workerPort}/health/ready`);
    for (const url of urls) await waitForStatus(url, 200, 60_000);
  }, 90_000);

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop()));
    await stopRedis(redis);
  });

  it('is live and ready with every dependency up', async () => {
    for (const url of urls) {
      const { code, body } = await readiness(url);
      expect(code).toBe(200);
      expect(Object.keys(body.details).sort()).toEqual(['elasticsearch', 'mysql', 'redis', 's3']);
      expect((await fetch(url.replace('ready', 'live'))).status).toBe(200);
    }
  });

  it('turns not-ready naming Redis when it stops, and ready again when it returns', async () => {
    await stopRedis(redis);
    for (const url of urls) {
      const down = await waitFor('not ready', async () => {
        const result = await readiness(url);
        return result.code === 503 ? result : undefined;
      });
      expect(down.body.details.redis!.status).toBe('down');
      expect(down.body.details.mysql!.status).toBe('up');
      expect((await fetch(url.replace('ready', 'live'))).status).toBe(200);
    }

    redis = startRedis(redisPort);
    for (const url of urls) await waitForStatus(url, 200, 30_000);
  }, 90_000);
});
