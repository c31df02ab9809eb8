import type { Readiness } from '@app/shared/health/health.schema';
import { bootSystem } from '../support/boot';
import { waitFor } from '../support/processes';
import { call, token } from '../support/system';

async function readiness(url: string): Promise<{ code: number; body: Readiness }> {
  const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  return { code: response.status, body: (await response.json()) as Readiness };
}

/**
 * A Redis of this test's own, so stopping it takes nothing away from the other tests. Ready means
 * able to serve (docs/contract.md §9): while Redis is down the API and the worker stay ready and
 * report it, the routes that do not need Redis answer as usual, and all report it up again once
 * it is back.
 */
describe('readiness reports the dependencies and stays in service', () => {
  const urls: string[] = [];
  // Each on free ports (the API's metrics too), each waited for until ready. Once Redis came back
  // empty, the worker's queue consumers take until SHUTDOWN_TIMEOUT_MS to close: a second bounds
  // the stop at the end, which this file does not check.
  const boot = bootSystem({ reset: false, redis: 'own', system: { env: { SHUTDOWN_TIMEOUT_MS: '1000' } } });

  beforeAll(() => {
    urls.push(`${boot.system.api}/health/ready`, `${boot.system.workerHealth}/health/ready`);
  });

  it('is live and ready with every dependency up', async () => {
    for (const url of urls) {
      const { code, body } = await readiness(url);
      expect(code).toBe(200);
      expect(body.status).toBe('ok');
      expect(Object.keys(body.details).sort()).toEqual(['elasticsearch', 'mysql', 'redis', 's3']);
      expect((await fetch(url.replace('ready', 'live'))).status).toBe(200);
    }
  });

  it('stays ready while Redis is down, naming it, and a search is still answered', async () => {
    await boot.redis.stop();
    for (const url of urls) {
      const degraded = await waitFor('Redis reported down', async () => {
        const result = await readiness(url);
        return result.body.details.redis?.status === 'down' ? result : undefined;
      });
      expect(degraded.code).toBe(200);
      expect(degraded.body.status).toBe('degraded');
      expect(degraded.body.details.mysql!.status).toBe('up');
      // Public: the statuses, not the error's text with the host and port.
      expect(JSON.stringify(degraded.body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|message/);
      expect((await fetch(url.replace('ready', 'live'))).status).toBe(200);
    }
    const search = await call(
      'GET',
      `${boot.system.api}/api/videos/search?q=readiness`,
      token('readiness-reader'),
    );
    expect(search.status).toBe(200);

    await boot.redis.start();
    for (const url of urls)
      await waitFor('every dependency up again', async () =>
        (await readiness(url)).body.status === 'ok' ? true : undefined,
      );
  }, 90_000);
});
