import { mediaPrefix } from '@app/shared/storage/storage.service';
import { JobQueues } from '@app/shared/queue/job-queues.service';
import { deletionJobId } from '@app/shared/queue/jobs';
import { QUEUES } from '@app/shared/queue/queues';
import { bootSystem } from '../support/boot';
import { ENTRY, runProcess, sleep, startService, waitFor } from '../support/processes';
import { remains, seedVideos } from '../support/seed';
import { call, token } from '../support/system';

describe('sweeps', () => {
  // Each test starts the processes it needs; they stop when it ends.
  const boot = bootSystem({ redis: 'own', system: false });

  it('`cli sweep` enqueues due purges that Redis lost', async () => {
    const system = await boot.start({}, { worker: false });
    const [id] = await seedVideos(boot.context, 1);
    expect(
      (await call('DELETE', `${system.api}/api/videos/${id}?retentionDays=0`, token('author-1'))).status,
    ).toBe(200);
    await boot.redis.flushAll();

    const result = await runProcess(ENTRY.cli, ['sweep'], { REDIS_URL: boot.redis.url });
    expect(result).toMatchObject({ code: 0 });
    expect(result.output).toMatch(/Enqueued 1 due purge/);
    const queues = new JobQueues({ ...boot.context.config, REDIS_URL: boot.redis.url });
    try {
      expect(await queues.queue('video-deletion').getJob(deletionJobId(id!))).toBeDefined();
    } finally {
      await queues.close();
    }
  }, 60_000);

  it('deletes media whose video no longer exists, and only those', async () => {
    const [kept] = await seedVideos(boot.context, 1);
    const orphan = '6a1f0c2e-9b3d-4e5f-8a7b-1c2d3e4f5a6b';
    for (const name of ['original.mp4', 'thumbnail.jpg', 'captions/en.vtt']) {
      await boot.context.storage.putObject(
        `${mediaPrefix(orphan)}${name}`,
        'left behind',
        'application/octet-stream',
      );
    }
    await boot.start({ ORPHAN_SWEEP_INTERVAL_MS: '1000', ORPHAN_GRACE_MS: '0' });
    await waitFor('the orphan sweep', async () =>
      (await boot.context.storage.countKeys(mediaPrefix(orphan))) === 0 ? true : undefined,
    );
    expect((await remains(boot.context, kept!)).objects).toBe(2);
  }, 60_000);

  it('runs a sweep within its interval after a restart, whatever interval its schedule had before', async () => {
    const queues = new JobQueues({ ...boot.context.config, REDIS_URL: boot.redis.url });
    const maintenance = queues.queue(QUEUES.maintenance);
    const runsSince = async (since: number) =>
      (await maintenance.getJobs(['completed'])).filter(
        (job) => job.name === 'purge-sweep' && (job.finishedOn ?? 0) >= since,
      ).length;
    try {
      // What a worker on the default minute may leave: runs 50 s into each minute.
      await maintenance.removeJobScheduler('purge-sweep');
      await maintenance.upsertJobScheduler(
        'purge-sweep',
        { every: 60_000, offset: 50_000 },
        { name: 'purge-sweep', data: {} },
      );
      const env = { REDIS_URL: boot.redis.url, PURGE_SWEEP_INTERVAL_MS: '1000' };
      const started = Date.now();
      const first = await startService('worker', env);
      await waitFor(
        'a run of the purge sweep',
        async () => ((await runsSince(started)) > 0 ? true : undefined),
        {
          timeoutMs: 15_000,
          intervalMs: 250,
        },
      );
      await first.process.stop();
      // Runs are missed while no worker runs; the next worker catches up within one interval.
      await sleep(2_500);
      const restarted = Date.now();
      const second = await startService('worker', env);
      try {
        await waitFor(
          'three runs of the purge sweep after the restart',
          async () => ((await runsSince(restarted)) >= 3 ? true : undefined),
          { timeoutMs: 20_000, intervalMs: 250 },
        );
        const schedule = await maintenance.getJobScheduler('purge-sweep');
        expect(schedule?.every).toBe(1_000);
        expect(schedule?.offset ?? 0).toBeLessThan(1_000);
      } finally {
        await second.process.stop();
      }
    } finally {
      await queues.close();
    }
  }, 90_000);
});
