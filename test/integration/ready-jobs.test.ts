import { Queue, Worker } from 'bullmq';
import { readyJobs } from '@app/shared/queue/ready-work';
import { bullConnection } from '@app/shared/redis/redis';
import { waitFor } from '../support/processes';
import { startOwnRedis, type OwnRedis } from '../support/redis-server';

/**
 * What the worker's consumer check counts as ready on a real Redis: waiting jobs and delayed
 * jobs whose time has come, never a retry still in its backoff, however old the job.
 */
describe('readyJobs', () => {
  let redis: OwnRedis;
  let queue: Queue;

  beforeAll(async () => {
    redis = await startOwnRedis();
    queue = new Queue('ready-jobs', { connection: bullConnection({ REDIS_URL: redis.url }) });
  }, 30_000);

  afterAll(async () => {
    await queue?.close();
    await redis?.stop();
  });

  it('counts waiting jobs and due delayed ones, not those delayed for later', async () => {
    await queue.add('now', {});
    await queue.add('soon', {}, { delay: 200 });
    await queue.add('later', {}, { delay: 3_600_000 });
    expect(await readyJobs(queue)).toBe(1);
    // Nothing fetches here: the delayed job stays delayed once due, as under a parked consumer.
    await waitFor(
      'the short delay to pass',
      async () => ((await readyJobs(queue)) === 2 ? true : undefined),
      {
        timeoutMs: 5_000,
        intervalMs: 50,
      },
    );
    expect(await queue.getDelayedCount()).toBe(2);
    await queue.obliterate({ force: true });
  });

  it('leaves out a retry in its backoff, though the job was made an hour ago', async () => {
    // Made an hour ago, failed once, retried in 10 minutes: its own timestamp plus delay lies in the past.
    const job = await queue.add(
      'flaky',
      {},
      { timestamp: Date.now() - 3_600_000, attempts: 2, backoff: { type: 'fixed', delay: 600_000 } },
    );
    const worker = new Worker(
      'ready-jobs',
      () => {
        throw new Error('fails once');
      },
      { connection: bullConnection({ REDIS_URL: redis.url }) },
    );
    try {
      await waitFor(
        'the failed attempt to be delayed for its retry',
        async () => ((await queue.getJobState(job.id!)) === 'delayed' ? true : undefined),
        { timeoutMs: 10_000 },
      );
    } finally {
      await worker.close();
    }
    const delayed = (await queue.getJob(job.id!))!;
    expect(delayed.timestamp + delayed.delay).toBeLessThan(Date.now());
    expect(await readyJobs(queue)).toBe(0);
  });
});
