import { bootSystem } from '../support/boot';
import { sleep, type RunningProcess } from '../support/processes';
import { seedVideos, waitUntilGone } from '../support/seed';
import { call, token } from '../support/system';
import { record } from './results';

const VIDEOS = Number(process.env.CHAOS_VIDEOS ?? 1_000);
const KILL_EVERY_MS = 3_000;
const STORM_MS = 30_000;

describe('chaos: soft deletes with retentionDays=0 while workers are killed and Redis is flushed', () => {
  const boot = bootSystem({
    redis: 'own',
    system: { env: { PURGE_SWEEP_INTERVAL_MS: '1000' }, worker: false },
  });

  it(`purges every one of ${VIDEOS} videos exactly once`, async () => {
    const ids = await seedVideos(boot.context, VIDEOS, { objectsPerVideo: 1 });
    const admin = token('chaos', ['admin']);
    for (let i = 0; i < ids.length; i += 50) {
      await Promise.all(
        ids.slice(i, i + 50).map(async (id) => {
          expect(
            (await call('DELETE', `${boot.system.api}/api/videos/${id}?retentionDays=0`, admin)).status,
          ).toBe(200);
        }),
      );
    }

    let worker: RunningProcess = await boot.system.startWorker();
    let kills = 0;
    let flushed = false;
    const stormEnds = Date.now() + STORM_MS;
    while (Date.now() < stormEnds) {
      await sleep(KILL_EVERY_MS);
      await worker.stop('SIGKILL');
      kills += 1;
      if (!flushed) {
        await boot.redis.flushAll();
        flushed = true;
      }
      worker = await boot.system.startWorker();
    }
    await waitUntilGone(boot.context, ids, 240_000);

    const audits: { video_id: string; n: string }[] = await boot.context.dataSource.query(
      'SELECT video_id, COUNT(*) AS n FROM deletion_audit WHERE video_id IN (?) GROUP BY video_id',
      [ids],
    );
    const objects = (await boot.context.allMediaKeys()).length;
    const documents = (await boot.context.indexedIds()).filter((id) => ids.includes(id)).length;
    const onceEach = audits.length === ids.length && audits.every((a) => Number(a.n) === 1);
    record({
      scenario: 'kill storm',
      load: `${VIDEOS} soft deletes, retentionDays=0`,
      faults: `worker SIGKILL every ${KILL_EVERY_MS / 1000} s for ${STORM_MS / 1000} s (${kills} kills), Redis FLUSHALL once`,
      expected: 'every video purged once; no row, object or document left',
      observed: `${audits.length} audited (${onceEach ? 'once each' : 'NOT once each'}), 0 rows, ${objects} objects, ${documents} documents`,
      met: onceEach && objects === 0 && documents === 0,
    });
    expect(onceEach).toBe(true);
    expect(objects).toBe(0);
    expect(documents).toBe(0);
  }, 600_000);
});
