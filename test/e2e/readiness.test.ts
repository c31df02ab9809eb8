import { waitFor, waitForStatus } from '../support/processes';
import { startOwnRedis, type OwnRedis } from '../support/redis-server';
import { startSystem, type System } from '../support/system';

interface Readiness {
  status: string;
  details: Record<string, { status: string }>;
}

async function readiness(url: string): Promise<{ code: number; body: Readiness }> {
  const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  return { code: response.status, body: (await response.json()) as Readiness };
}

/**
 * A Redis of this test's own, so stopping it takes nothing away from the other tests: the API
 * and the worker must turn not-ready when it stops and ready again when it returns.
 */
describe('readiness follows the dependencies', () => {
  let redis: OwnRedis;
  let system: System | undefined;
  const urls: string[] = [];

  beforeAll(async () => {
    redis = await startOwnRedis();
    // Each on free ports (the API's metrics too), each waited for until ready.
    system = await startSystem({ REDIS_URL: redis.url });
    urls.push(`${system.api}/health/ready`, `${system.workerHealth}/health/ready`);
  }, 120_000);

  afterAll(async () => {
    await system?.stop();
    await redis.stop();
  }, 60_000);

  it('is live and ready with every dependency up', async () => {
    for (const url of urls) {
      const { code, body } = await readiness(url);
      expect(code).toBe(200);
      expect(Object.keys(body.details).sort()).toEqual(['elasticsearch', 'mysql', 'redis', 's3']);
      expect((await fetch(url.replace('ready', 'live'))).status).toBe(200);
    }
  });

  it('turns not-ready naming Redis when it stops, and ready again when it returns', async () => {
    await redis.stop();
    for (const url of urls) {
      const down = await waitFor('not ready', async () => {
        const result = await readiness(url);
        return result.code === 503 ? result : undefined;
      });
      expect(down.body.details.redis!.status).toBe('down');
      expect(down.body.details.mysql!.status).toBe('up');
      // Public: the statuses, not the error's text with the host and port.
      expect(JSON.stringify(down.body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|message/);
      expect((await fetch(url.replace('ready', 'live'))).status).toBe(200);
    }

    await redis.start();
    for (const url of urls) await waitForStatus(url, 200, 30_000);
  }, 90_000);
});
