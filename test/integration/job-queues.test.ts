import { Worker, type Job } from 'bullmq';
import { endpointOf } from '@app/shared/net/receiver-url';
import { BULK_DELETION_PRIORITY, JobQueues } from '@app/shared/queue/job-queues.service';
import { deletionJobId, deliveryJobId } from '@app/shared/queue/jobs';
import { QUEUE_PREFIX, QUEUES, receiverQueueName } from '@app/shared/queue/queues';
import { bullConnection } from '@app/shared/redis/redis';
import { startOwnRedis, type OwnRedis } from '../support/redis-server';

const RECEIVER = 'http://receiver.test/hooks';
const id = (n: number) => `0000000${n}-0000-4000-8000-000000000000`;

/** The producer side on a real Redis: which queue a job lands in, and in what order the deletion slots take them. */
describe('JobQueues on Redis', () => {
  let redis: OwnRedis;
  let queues: JobQueues;

  beforeAll(async () => {
    redis = await startOwnRedis();
    queues = new JobQueues({ REDIS_URL: redis.url, WEBHOOK_URLS: [RECEIVER] });
  }, 30_000);

  afterAll(async () => {
    await queues?.close();
    await redis?.stop();
  });

  it('runs a due purge before bulk deletions queued earlier; a bulk purge for later is not held back', async () => {
    const deletions = queues.queue(QUEUES.deletion);
    for (const n of [1, 2, 3]) await queues.ensureDeletionJob(id(n), 0, undefined, { bulk: true });
    await queues.ensureDeletionJob(id(4), 0);
    await queues.ensureDeletionJob(id(5), 60_000, undefined, { bulk: true });
    expect((await deletions.getJob(deletionJobId(id(1))))?.opts.priority).toBe(BULK_DELETION_PRIORITY);
    expect(await (await deletions.getJob(deletionJobId(id(1))))!.getState()).toBe('prioritized');
    expect(await (await deletions.getJob(deletionJobId(id(4))))!.getState()).toBe('waiting');
    expect((await deletions.getJob(deletionJobId(id(5))))?.opts.priority).toBeFalsy();

    const taken: string[] = [];
    const worker = new Worker(
      QUEUES.deletion,
      (job: Job<{ videoId: string }>) => {
        taken.push(job.data.videoId);
        return Promise.resolve();
      },
      { connection: bullConnection({ REDIS_URL: redis.url }), prefix: QUEUE_PREFIX, concurrency: 1 },
    );
    try {
      while (taken.length < 4) await new Promise((done) => setTimeout(done, 50));
    } finally {
      await worker.close();
    }
    expect(taken).toEqual([id(4), id(1), id(2), id(3)]);
  }, 30_000);

  it("puts a delivery on its receiver's own queue, and one to a receiver no longer configured on webhooks", async () => {
    const configured = endpointOf(RECEIVER);
    await queues.ensureDeliveryJob({ id: '7', endpointKey: configured.key }, 0, 60_000);
    await queues.ensureDeliveryJob({ id: '8', endpointKey: 'f'.repeat(64) }, 0, 60_000);
    const own = queues.queue(receiverQueueName(configured.key));
    expect(queues.receiverQueues().map((receiver) => receiver.name)).toEqual([own.name]);
    expect(await own.getJob(deliveryJobId('7', 0))).toBeTruthy();
    expect(await queues.queue(QUEUES.webhooks).getJob(deliveryJobId('8', 0))).toBeTruthy();
    expect(await queues.queue(QUEUES.webhooks).getJob(deliveryJobId('7', 0))).toBeFalsy();
  });
});
