import { bootSystem } from '../support/boot';
import { jsonLogLines } from '../support/processes';
import { seedVideos, waitUntilGone } from '../support/seed';
import { call, token } from '../support/system';

/** Two API processes and two worker processes on the same MySQL, Redis, Elasticsearch and S3. */
describe('independent scaling', () => {
  const boot = bootSystem({
    redis: 'own',
    system: { env: { LOG_LEVEL: 'info', RATE_LIMIT_POINTS: '200', WORKER_CONCURRENCY: '2' }, worker: false },
  });

  it('spreads requests over both APIs and jobs over both workers, and does no job twice', async () => {
    const second = await boot.system.startApi();
    const apis = [boot.system.api, second.url];
    const workers = [await boot.system.startWorker(), await boot.system.startWorker()];
    const admin = token('scaler', ['admin']);
    const ids = await seedVideos(boot.context, 60, { title: () => 'Scaled pelican panel' });

    const answeredBy = await Promise.all(
      ids.map(async (id, i) => {
        const api = apis[i % 2]!;
        const response = await call('DELETE', `${api}/api/videos/${id}?retentionDays=0`, admin, {
          'x-request-id': `scale-${i}`,
        });
        expect(response.status).toBe(200);
        return api;
      }),
    );
    expect(new Set(answeredBy)).toEqual(new Set(apis));
    for (const api of apis)
      expect((await call('GET', `${api}/api/videos/search?q=pelican`, admin)).status).toBe(200);

    await waitUntilGone(boot.context, ids);

    const purgedBy = workers.map((worker) =>
      jsonLogLines<{ videoId: string; requestId?: string }>(worker, '"outcome":"purged"'),
    );
    // Both workers took a share; together they purged every video exactly once.
    for (const share of purgedBy) expect(share.length).toBeGreaterThan(0);
    const all = purgedBy.flat();
    expect(all.map((entry) => entry.videoId).sort()).toEqual([...ids].sort());
    // The request id of each DELETE followed the work into its job.
    const requestIds = new Map(all.map((entry) => [entry.videoId, entry.requestId]));
    ids.forEach((id, i) => expect(requestIds.get(id)).toBe(`scale-${i}`));
  }, 120_000);

  it('never shows on one API a video another API deleted, though it keeps copies of what it showed', async () => {
    const [reader, writer] = [boot.system.api, (await boot.system.startApi()).url];
    const admin = token('copies-reader', ['admin']);
    const ids = await seedVideos(boot.context, 6, { title: (i) => `Copied heron panel ${i}` });
    const shown = async () => {
      const response = await call<{ items: { id: string }[] }>(
        'GET',
        `${reader}/api/videos/search?q=heron&limit=20`,
        admin,
      );
      expect(response.status).toBe(200);
      return response.body.items.map((item) => item.id).sort();
    };
    // Twice, so the reader answers the second from the copies it kept.
    expect(await shown()).toEqual([...ids].sort());
    expect(await shown()).toEqual([...ids].sort());

    // Deleted through the other process; the reader is asked at once, before the index refreshes.
    const [soft, permanent] = [ids[0]!, ids[1]!];
    expect((await call('DELETE', `${writer}/api/videos/${soft}`, admin)).status).toBe(200);
    expect((await call('DELETE', `${writer}/api/videos/${permanent}?permanent=true`, admin)).status).toBe(
      200,
    );
    expect(await shown()).toEqual(ids.slice(2).sort());

    // Restored through the other process: shown again once the index has it.
    expect((await call('POST', `${writer}/api/videos/${soft}/restore`, admin)).status).toBe(200);
    await boot.context.indexAdmin.refresh();
    expect(await shown()).toEqual([soft, ...ids.slice(2)].sort());
  }, 120_000);

  it('holds one rate limit per caller across API processes (counted in Redis)', async () => {
    // Two more API processes, each allowing 10 requests per caller and window.
    const apis = [
      (await boot.system.startApi({ RATE_LIMIT_POINTS: '10' })).url,
      (await boot.system.startApi({ RATE_LIMIT_POINTS: '10' })).url,
    ];
    const caller = token('shared-limit-caller');
    const statuses: number[] = [];
    for (let i = 0; i < 12; i += 1) {
      const api = apis[i % 2]!;
      statuses.push((await call('GET', `${api}/api/videos/search?q=x`, caller)).status);
    }
    expect(statuses.slice(0, 10)).toEqual(Array.from({ length: 10 }, () => 200));
    expect(statuses.slice(10)).toEqual([429, 429]);
  }, 120_000);

  it('never writes a token or secret into the logs', () => {
    const secret = process.env.JWT_SECRET!;
    for (const running of boot.system.processes) {
      expect(running.output()).not.toContain(secret);
      expect(running.output()).not.toMatch(/eyJ[\w-]+\.eyJ/);
      expect(running.output()).not.toMatch(/authorization/i);
    }
  });
});
