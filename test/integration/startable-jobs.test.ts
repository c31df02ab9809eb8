import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import type { AppConfig } from '@app/shared/config/config.schema';
import { loadConfig } from '@app/shared/config/load-config';
import { JobQueues } from '@app/shared/queue/job-queues.service';
import { syncJobId } from '@app/shared/queue/jobs';
import { QUEUES } from '@app/shared/queue/queues';
import { startableJobs } from '@app/shared/queue/ready-work';
import { MetricsService } from '@app/shared/metrics/metrics.service';
import { StoredMetrics } from '@app/shared/metrics/stored-metrics';
import { DAY_MS } from '@app/shared/util/time';
import { workerScaler } from '../support/keda';
import { sampleValue } from '../support/observability';

/**
 * The work the worker autoscaler counts (`queue_startable_jobs`, which KEDA reads through
 * Prometheus), on the test Redis: what a worker would start now, so never a paused queue's jobs,
 * nor those delayed for later.
 */
describe('the startable jobs the worker autoscaler reads', () => {
  const config = loadConfig();
  let queues: JobQueues;

  beforeAll(() => {
    queues = new JobQueues({ ...config, WEBHOOK_URLS: [] });
  });

  // The test Redis is shared with the files before: each test starts from empty queues, and leaves them so.
  const empty = async () => {
    for (const name of [QUEUES.deletion, QUEUES.index]) await queues.queue(name).obliterate({ force: true });
  };
  beforeEach(empty);
  afterEach(empty);

  afterAll(async () => {
    await queues?.close();
  });

  it('counts the queued jobs, none while the queue is paused, and them all again once it is resumed', async () => {
    const index = queues.queue(QUEUES.index);
    for (const id of Array.from({ length: 5 }, () => randomUUID()))
      await queues.add('sync-video', { videoId: id }, { jobId: syncJobId(id, 1) });
    expect(await startableJobs(index)).toBe(5);

    await index.pause();
    // Paused, BullMQ keeps the jobs in `wait`: the keys alone would still show them.
    expect(await index.getWaitingCount()).toBe(5);
    expect(await startableJobs(index)).toBe(0);

    await index.resume();
    expect(await startableJobs(index)).toBe(5);
  });

  it('is what the processes export as queue_startable_jobs, paused or not', async () => {
    // Only the queues' reads matter here: the MySQL ones fail, and say so in a warning.
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const metrics = new MetricsService();
    const none = {} as never;
    const stored = new StoredMetrics(metrics, queues, none, none, none, none, {
      METRICS_REFRESH_INTERVAL_MS: 15_000,
    } as AppConfig);
    const exported = async () => {
      await stored.refresh();
      return sampleValue(await metrics.registry.metrics(), 'queue_startable_jobs', { queue: QUEUES.index });
    };
    for (const id of Array.from({ length: 4 }, () => randomUUID()))
      await queues.add('sync-video', { videoId: id }, { jobId: syncJobId(id, 1) });
    expect(await exported()).toBe(4);
    await queues.queue(QUEUES.index).pause();
    expect(await exported()).toBe(0);
    await queues.queue(QUEUES.index).resume();
    expect(await exported()).toBe(4);
  });

  it('leaves out deletions delayed for later, and counts the bulk ones that wait with a priority', async () => {
    const deletion = queues.queue(QUEUES.deletion);
    for (const id of Array.from({ length: 3 }, () => randomUUID()))
      await queues.ensureDeletionJob(id, 0, undefined, { bulk: true });
    for (const id of Array.from({ length: 4 }, () => randomUUID()))
      await queues.ensureDeletionJob(id, DAY_MS);
    expect(await deletion.getDelayedCount()).toBe(4);
    expect(await startableJobs(deletion)).toBe(3);
  });

  it('is read for exactly the queues the committed ScaledObject sums', () => {
    for (const overlay of ['production', 'production-redis-cluster', 'local'])
      expect(workerScaler(overlay).queues.sort()).toEqual([QUEUES.deletion, QUEUES.index].sort());
  });
});
