import { Redis } from 'ioredis';
import { QUEUE_PREFIX, QUEUES } from '@app/shared/queue/queues';
import { bootSystem } from '../support/boot';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy';
import { sampleValue } from '../support/observability';
import { waitFor, type RunningProcess } from '../support/processes';
import { remains, seedVideos, waitUntilGone } from '../support/seed';
import { call, token, type System } from '../support/system';

const admin = token('boss', ['admin']);

/**
 * Leaves a sweep's schedule in Redis with its next run due a minute ago and no job of it to run,
 * once the worker has made that schedule's first run and its successor (BullMQ's keys, one server).
 */
async function loseNextRun(redisUrl: string, queue: string, scheduler: string): Promise<void> {
  const client = new Redis(redisUrl);
  const keys = `${QUEUE_PREFIX}:${queue}`;
  try {
    const next = await waitFor(
      `${scheduler}'s first run to have made its successor`,
      async () => {
        const score = await client.zscore(`${keys}:repeat`, scheduler);
        return score !== null && Number(score) > Date.now() ? score : undefined;
      },
      { timeoutMs: 30_000 },
    );
    const jobId = `repeat:${scheduler}:${next}`;
    await client
      .multi()
      .zrem(`${keys}:delayed`, jobId)
      .del(`${keys}:${jobId}`)
      .zadd(`${keys}:repeat`, Date.now() - 60_000, scheduler)
      .exec();
  } finally {
    client.disconnect();
  }
}

/**
 * Nothing is lost: each test gives the system its own Redis (so flushing or killing touches no
 * other test) and checks MySQL, the index and the bucket directly at the end.
 */
describe('deletions complete through faults', () => {
  let system: System | undefined;
  let proxy: FaultProxy | undefined;
  const boot = bootSystem({ redis: 'own-each', system: false });
  afterEach(async () => {
    system = undefined;
    await proxy?.close();
    proxy = undefined;
  });

  const env = () => ({ PURGE_SWEEP_INTERVAL_MS: '1000', LOG_LEVEL: 'info' });

  async function deleteAll(ids: string[], query: string): Promise<void> {
    for (const id of ids) {
      const response = await call('DELETE', `${system!.api}/api/videos/${id}${query}`, admin);
      expect(response.status).toBe(200);
    }
  }

  async function expectAllPurged(ids: string[], timeoutMs = 60_000): Promise<void> {
    await waitUntilGone(boot.context, ids, timeoutMs);
    for (const id of ids) {
      expect(await remains(boot.context, id)).toMatchObject({ row: null, objects: 0, document: null });
      expect((await remains(boot.context, id)).audits).toHaveLength(1);
    }
  }

  it('purges every video after Redis lost every job (FLUSHALL before the worker ran)', async () => {
    system = await boot.start(env(), { worker: false });
    const ids = await seedVideos(boot.context, 20);
    await deleteAll(ids, '?retentionDays=0');
    await boot.redis.flushAll();

    await system.startWorker();
    await expectAllPurged(ids);
  }, 120_000);

  /**
   * Soft deletes five videos under an hourly purge sweep (it runs at the worker's start, then only a
   * repaired schedule runs it again soon), lets `lose` take from Redis what a fault takes, makes the
   * purges due (a day passes; their own jobs are a day away, or gone) and expects every one done.
   */
  async function purgedThroughRepairedSchedule(lose: () => Promise<void>): Promise<void> {
    system = await boot.start({
      ...env(),
      PURGE_SWEEP_INTERVAL_MS: '3600000',
      SCHEDULE_CHECK_INTERVAL_MS: '1000',
    });
    const ids = await seedVideos(boot.context, 5);
    await deleteAll(ids, '?retentionDays=1');
    await lose();
    await boot.context.dataSource.query('UPDATE videos SET purge_at = ? WHERE id IN (?)', [
      new Date(Date.now() - 1_000),
      ids,
    ]);
    await expectAllPurged(ids, 30_000);
  }

  it('re-creates the sweep schedules a flush removed while the worker kept running', async () => {
    // Every job and every schedule gone.
    await purgedThroughRepairedSchedule(() => boot.redis.flushAll());
  }, 90_000);

  it('re-creates a sweep schedule that Redis kept but whose next run it lost, while the worker kept running', async () => {
    // What a failover can leave (a run started, its successor never written): the schedule says
    // its next run was due a minute ago, and no job of it is left to run.
    await purgedThroughRepairedSchedule(() => loseNextRun(boot.redis.url, QUEUES.maintenance, 'purge-sweep'));
    // Operators see the repair: a warning in the log, and the worker's count of them.
    expect(system!.processes.some((p) => p.output().includes('schedule overdue: re-created'))).toBe(true);
    const metrics = await (
      await fetch(`${system!.workerHealth}/metrics`, { signal: AbortSignal.timeout(5_000) })
    ).text();
    expect(
      sampleValue(metrics, 'worker_repairs_total', { repair: 'schedule_overdue' }),
    ).toBeGreaterThanOrEqual(1);
    expect(sampleValue(metrics, 'worker_repairs_total', { repair: 'consumer_replaced' }) ?? 0).toBe(0);
  }, 90_000);

  it('finishes a deletion whose worker was killed with SIGKILL in the middle of it', async () => {
    // Slow storage for the first worker, so the kill lands between two batches of objects.
    proxy = await startFaultProxy(boot.context.config.S3_ENDPOINT, { latencyMs: 400 });
    system = await boot.start(env(), { worker: false });
    const [id] = await seedVideos(boot.context, 1, { objectsPerVideo: 2_500 });
    const doomed: RunningProcess = await system.startWorker({ S3_ENDPOINT: proxy.url });

    await deleteAll([id!], '?permanent=true');
    await waitFor(
      'the deletion to be half done',
      async () => {
        const objects = (await remains(boot.context, id!)).objects;
        return objects > 0 && objects < 2_500 ? objects : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    await doomed.stop('SIGKILL');
    const midway = await remains(boot.context, id!);
    expect(midway.row).toEqual({ state: 'deleting' });
    expect(midway.audits).toEqual([]);
    expect(midway.objects).toBeGreaterThan(0);

    await system.startWorker();
    await expectAllPurged([id!], 90_000);
  }, 150_000);

  it('purges each video exactly once with two workers', async () => {
    system = await boot.start(env(), { worker: false });
    const workers = [await system.startWorker(), await system.startWorker()];
    const ids = await seedVideos(boot.context, 40);
    await deleteAll(ids, '?retentionDays=0');
    await expectAllPurged(ids);

    // Every purge that did the work logs outcome "purged"; a repeat would log another one.
    const purgedBy = workers.map((worker) =>
      worker
        .output()
        .split('\n')
        .filter((line) => line.includes('"outcome":"purged"'))
        .map((line) => (JSON.parse(line) as { videoId: string }).videoId),
    );
    const all = purgedBy.flat();
    expect(all.sort()).toEqual([...ids].sort());
    expect(new Set(all).size).toBe(ids.length);
  }, 120_000);

  it('deletes every object although storage fails a share of requests', async () => {
    proxy = await startFaultProxy(boot.context.config.S3_ENDPOINT, {
      failRate: 0.3,
      resetRate: 0.05,
      stallRate: 0.05,
      stallMs: 1_500,
    });
    system = await boot.start(env(), { worker: false });
    await system.startWorker({ S3_ENDPOINT: proxy.url });
    const ids = await seedVideos(boot.context, 15, { objectsPerVideo: 5 });
    await deleteAll(ids, '?permanent=true');

    await expectAllPurged(ids, 100_000);
    expect(proxy.stats.failed + proxy.stats.reset).toBeGreaterThan(0);
  }, 150_000);
});
