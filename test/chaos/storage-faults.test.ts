import { startFaultProxy, type FaultProxy } from '../support/fault-proxy';
import { startOwnRedis, type OwnRedis } from '../support/redis-server';
import { seedVideos, waitUntilGone } from '../support/seed';
import { call, startSystem, token, type System } from '../support/system';
import { openTestContext, type TestContext } from '../support/test-context';
import { record } from './results';

const VIDEOS = Number(process.env.CHAOS_VIDEOS ?? 500);

describe('chaos: permanent deletes while object storage fails and stalls', () => {
  let context: TestContext;
  let redis: OwnRedis;
  let proxy: FaultProxy;
  let system: System;

  beforeAll(async () => {
    context = await openTestContext();
    await context.reset();
    redis = await startOwnRedis();
    proxy = await startFaultProxy(context.config.S3_ENDPOINT, {
      failRate: 0.2,
      stallRate: 0.05,
      stallMs: 3_000,
    });
    system = await startSystem({ REDIS_URL: redis.url, PURGE_SWEEP_INTERVAL_MS: '2000' }, { worker: false });
    await system.startWorker({ S3_ENDPOINT: proxy.url });
  }, 120_000);

  afterAll(async () => {
    await system?.stop();
    await proxy?.close();
    await redis?.stop();
    await context?.close();
  }, 60_000);

  it(`leaves no object of ${VIDEOS} deleted videos once the retries settle`, async () => {
    const ids = await seedVideos(context, VIDEOS, { objectsPerVideo: 3 });
    const admin = token('chaos', ['admin']);
    for (let i = 0; i < ids.length; i += 50) {
      await Promise.all(
        ids.slice(i, i + 50).map(async (id) => {
          expect((await call('DELETE', `${system.api}/api/videos/${id}?permanent=true`, admin)).status).toBe(
            200,
          );
        }),
      );
    }
    await waitUntilGone(context, ids, 420_000);
    const objects = (await context.allMediaKeys()).length;
    const audits: unknown[] = await context.dataSource.query(
      'SELECT id FROM deletion_audit WHERE video_id IN (?)',
      [ids],
    );
    record({
      scenario: 'storage faults',
      load: `${VIDEOS} permanent deletes, 3 objects each`,
      faults: `S3 proxy: ${proxy.stats.failed} of ${proxy.stats.requests} requests failed (20%), ${proxy.stats.stalled} stalled 3 s`,
      expected: '0 objects left, one audit record per video',
      observed: `${objects} objects left, ${audits.length} audit records`,
      met: objects === 0 && audits.length === ids.length,
    });
    expect(objects).toBe(0);
    expect(audits).toHaveLength(ids.length);
  }, 600_000);
});
