import { bootSystem } from '../support/boot';
import { sampleValue } from '../support/observability';
import { jsonLogLines, waitFor } from '../support/processes';
import { seedVideos, waitUntilGone } from '../support/seed';
import { call, token } from '../support/system';

/** A process's `GET /metrics`, checked to be the Prometheus text exposition. */
async function scrape(url: string): Promise<string> {
  const response = await fetch(`${url}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
  return response.text();
}

describe('operations', () => {
  const boot = bootSystem({
    redis: 'own',
    system: {
      env: {
        RATE_LIMIT_POINTS: '30',
        RATE_LIMIT_WINDOW_SECONDS: '60',
        // Values read from MySQL and Redis follow within half a second.
        METRICS_REFRESH_INTERVAL_MS: '500',
        // The start line (with the Node.js version) is an info line.
        LOG_LEVEL: 'info',
      },
    },
  });

  it('exposes HTTP, queue, job and purge metrics after real traffic, on the API and the worker', async () => {
    const user = token('metrics-user', ['admin']);
    const ids = await seedVideos(boot.context, 3);
    for (let i = 0; i < 5; i += 1)
      expect((await call('GET', `${boot.system.api}/api/videos/search?q=seeded`, user)).status).toBe(200);
    expect((await call('GET', `${boot.system.api}/api/videos/search?q=`, user)).status).toBe(400);
    for (const id of ids)
      expect((await call('DELETE', `${boot.system.api}/api/videos/${id}?retentionDays=0`, user)).status).toBe(
        200,
      );
    await waitUntilGone(boot.context, ids);

    const api = await scrape(boot.system.apiMetrics);
    expect(
      sampleValue(api, 'http_request_duration_seconds_count', { route: '/api/videos/search', status: '200' }),
    ).toBe(5);
    expect(
      sampleValue(api, 'http_request_duration_seconds_count', { route: '/api/videos/search', status: '400' }),
    ).toBe(1);
    expect(
      sampleValue(api, 'http_request_duration_seconds_count', { route: '/api/videos/:id', status: '200' }),
    ).toBe(3);
    for (const queue of ['video-deletion', 'video-index', 'maintenance']) {
      expect(sampleValue(api, 'queue_jobs', { queue, state: 'failed' })).toBe(0);
    }
    expect(sampleValue(api, 'deletions_failing')).toBe(0);
    // The purges just done show once MySQL is read again, within an interval of the last read.
    await waitFor('no purge lag on the API', async () =>
      sampleValue(await scrape(boot.system.apiMetrics), 'purge_lag_seconds') === 0 ? true : undefined,
    );

    const worker = await scrape(boot.system.workerHealth);
    expect(
      sampleValue(worker, 'job_duration_seconds_count', { name: 'delete-video', outcome: 'completed' }),
    ).toBe(3);
    expect(sampleValue(worker, 'job_failures_total', { name: 'delete-video' }) ?? 0).toBe(0);
    expect(sampleValue(worker, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    // Both processes run on the Node.js the project pins (Node 24 LTS), and say so.
    for (const text of [api, worker])
      expect(sampleValue(text, 'nodejs_version_info', { major: '24' })).toBe(1);
    for (const process of boot.system.processes) {
      const [start] = jsonLogLines<{ node?: string; msg?: string }>(process, '"node":"v');
      expect(start?.node).toMatch(/^v24\.\d+\.\d+$/);
      expect(start?.msg).toContain('listening on port');
    }
  }, 60_000);

  it('reports purge lag while a due purge waits', async () => {
    const [id] = await seedVideos(boot.context, 1);
    await boot.context.dataSource.query(
      "UPDATE videos SET state = 'soft_deleted', deleted_at = ?, purge_at = ? WHERE id = ?",
      [new Date(Date.now() - 120_000), new Date(Date.now() - 90_000), id],
    );
    // Read from MySQL at the next refresh, not at the scrape.
    await waitFor(
      'a purge lag of 90 s on the API',
      async () =>
        (sampleValue(await scrape(boot.system.apiMetrics), 'purge_lag_seconds') ?? 0) >= 90
          ? true
          : undefined,
      { timeoutMs: 10_000 },
    );
    await boot.context.dataSource.query(
      "UPDATE videos SET state = 'active', deleted_at = NULL, purge_at = NULL WHERE id = ?",
      [id],
    );
  });

  it('limits each caller, answering 429 problem+json with Retry-After', async () => {
    const limited = token('busy-caller');
    const other = token('quiet-caller');
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 35; i += 1) {
      last = await call('GET', `${boot.system.api}/api/videos/search?q=x`, limited);
      statuses.push(last.status);
    }
    expect(statuses.slice(0, 30).every((s) => s === 200)).toBe(true);
    expect(statuses.slice(30).every((s) => s === 429)).toBe(true);
    expect(last!.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(last!.body).toMatchObject({ status: 429 });
    // Another caller is not affected.
    expect((await call('GET', `${boot.system.api}/api/videos/search?q=x`, other)).status).toBe(200);
  });
});
