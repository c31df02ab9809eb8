import { bootSystem } from '../support/boot';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy';
import { seedVideos, waitUntilGone } from '../support/seed';
import { call, token } from '../support/system';
import { record } from './results';

const VIDEOS = Number(process.env.CHAOS_VIDEOS ?? 500);

describe('chaos: permanent deletes while object storage fails and stalls', () => {
  let proxy: FaultProxy;
  const boot = bootSystem({
    redis: 'own',
    system: { env: { PURGE_SWEEP_INTERVAL_MS: '2000' }, worker: false },
  });

  beforeAll(async () => {
    proxy = await startFaultProxy(boot.context.config.S3_ENDPOINT, {
      failRate: 0.2,
      stallRate: 0.05,
      stallMs: 3_000,
    });
    await boot.system.startWorker({ S3_ENDPOINT: proxy.url });
  }, 60_000);
  afterAll(() => proxy?.close());

  it(`leaves no object of ${VIDEOS} deleted videos once the retries settle`, async () => {
    const ids = await seedVideos(boot.context, VIDEOS, { objectsPerVideo: 3 });
    const admin = token('chaos', ['admin']);
    for (let i = 0; i < ids.length; i += 50) {
      await Promise.all(
        ids.slice(i, i + 50).map(async (id) => {
          expect(
            (await call('DELETE', `${boot.system.api}/api/videos/${id}?permanent=true`, admin)).status,
          ).toBe(200);
        }),
      );
    }
    await waitUntilGone(boot.context, ids, 420_000);
    const objects = (await boot.context.allMediaKeys()).length;
    const audits: unknown[] = await boot.context.dataSource.query(
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
