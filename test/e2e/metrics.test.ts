import { Redis } from 'ioredis';
import { SCRAPE_REUSE_MS } from '@app/shared/metrics/metrics.service';
import { bootSystem } from '../support/boot';
import { sleep, waitFor } from '../support/processes';
import { seedVideos } from '../support/seed';
import { call, token } from '../support/system';

/**
 * Scrapes in a row, spread over several SCRAPE_REUSE_MS, so that the registry is serialised
 * several times while they run: each would read MySQL and Redis if a serialisation read them.
 */
const SCRAPES = 100;
const SCRAPE_EVERY_MS = 40;

/** A sample's value, e.g. `purge_lag_seconds` or `metrics_refreshed_timestamp_seconds{metric="queue_jobs"}`. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** Commands the Redis server has run so far (each INFO included). */
async function commandsRun(redis: Redis): Promise<number> {
  return Number(/total_commands_processed:(\d+)/.exec(await redis.info('stats'))![1]);
}

/**
 * The API's metrics on their own port (docs/contract.md §9), and the values read from MySQL and
 * Redis refreshed on an interval rather than per scrape. The API runs alone on a Redis of this
 * test's own, so every command that Redis counts is the API's.
 */
describe('API metrics', () => {
  let client: Redis;
  const boot = bootSystem({
    redis: 'own',
    // Longer than the test: after the read at start, none is due while it scrapes.
    system: { env: { METRICS_REFRESH_INTERVAL_MS: '600000' }, worker: false },
  });

  beforeAll(() => {
    client = new Redis(boot.redis.url);
  });
  afterAll(() => client?.disconnect());

  const scrape = async () => {
    const response = await fetch(`${boot.system.apiMetrics}/metrics`, { signal: AbortSignal.timeout(5_000) });
    expect(response.status).toBe(200);
    return response.text();
  };

  it('serves /metrics on METRICS_PORT without a token, and nothing of it on the public port', async () => {
    const response = await fetch(`${boot.system.apiMetrics}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(await response.text()).toContain('http_request_duration_seconds');
    // One serialisation answers every scrape within SCRAPE_REUSE_MS of it.
    await sleep(SCRAPE_REUSE_MS);
    expect(await scrape()).toBe(await scrape());

    for (const bearer of [undefined, token('operator', ['admin'])]) {
      const onPublicPort = await call('GET', `${boot.system.api}/metrics`, bearer);
      expect(onPublicPort.status).toBe(404);
      expect(onPublicPort.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
    const elsewhere = await call('GET', `${boot.system.apiMetrics}/api/videos/search?q=x`);
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('reads MySQL and Redis on its interval, never for a scrape', async () => {
    // The read at start, which every metric of the stores went through.
    const readAt = await waitFor('the first refresh', async () => {
      const text = await scrape();
      const times = [
        'queue_jobs',
        'purge_lag_seconds',
        'deletions_failing',
        'webhook_deliveries_undelivered',
      ].map((metric) => sample(text, `metrics_refreshed_timestamp_seconds{metric="${metric}"}`));
      return times.every((t) => t !== undefined) ? times : undefined;
    });
    // A purge due 90 s ago, which a scrape reading MySQL would report at once.
    const [id] = await seedVideos(boot.context, 1);
    await boot.context.dataSource.query(
      "UPDATE videos SET state = 'soft_deleted', deleted_at = ?, purge_at = ? WHERE id = ?",
      [new Date(Date.now() - 120_000), new Date(Date.now() - 90_000), id],
    );

    const before = await commandsRun(client);
    const texts: string[] = [];
    for (let i = 0; i < SCRAPES; i += 1) {
      texts.push(await scrape());
      await sleep(SCRAPE_EVERY_MS);
    }
    // Two INFO commands of this test's own; reading the queues costs dozens.
    expect((await commandsRun(client)) - before).toBeLessThanOrEqual(2);
    // The process's own figures moved between them: serialised anew, not one text answered throughout.
    expect(new Set(texts).size).toBeGreaterThanOrEqual(3);
    for (const text of texts) {
      expect(sample(text, 'purge_lag_seconds')).toBe(0);
      expect(sample(text, 'metrics_refreshed_timestamp_seconds{metric="purge_lag_seconds"}')).toBe(readAt[1]);
      expect(sample(text, 'queue_jobs{queue="video-deletion",state="delayed"}')).toBe(0);
    }
  }, 60_000);
});
