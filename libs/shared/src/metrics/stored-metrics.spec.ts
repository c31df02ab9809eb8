import { Logger } from '@nestjs/common';
import type { Job } from 'bullmq';
import type { AppConfig } from '../config/config.schema';
import type { ErasureRepository } from '../erasure/erasure.repository';
import type { OutboxRepository } from '../events/outbox.repository';
import type { JobQueues } from '../queue/job-queues.service';
import type { TrashOperationRepository } from '../trash/trash-operation.repository';
import type { UnfinishedOperations } from '../video/bulk-operation.repository';
import type { VideoRepository } from '../video/video.repository';
import { MetricsService } from './metrics.service';
import { DUE_PURGES_COUNTED, StoredMetrics } from './stored-metrics';

const NOW = 1_800_000_000_000;
const ago = (seconds: number) => new Date(NOW - seconds * 1_000);

/** A queue whose line holds the given jobs (next in line first) and no other job. */
function fakeQueue(name: string, inLine: Partial<Job>[] = []) {
  return {
    name,
    getJobCounts: () => Promise.resolve({ waiting: inLine.length }),
    getJobs: () => Promise.resolve(inLine.map((job) => ({ opts: {}, ...job }))),
    getFailedCount: () => Promise.resolve(0),
    getDelayedCount: () => Promise.resolve(0),
    isPaused: () => Promise.resolve(false),
  };
}

/** StoredMetrics over stores that answer what each test sets. */
function storedMetrics() {
  const stores = {
    queues: [fakeQueue('video-deletion'), fakeQueue('webhooks')],
    oldestDuePurge: null as Date | null,
    duePurges: 0,
    countCaps: [] as number[],
    erasures: [] as UnfinishedOperations<string>[],
    trash: [] as UnfinishedOperations<string>[],
    failing: undefined as Error | undefined,
  };
  const answer =
    <T>(value: () => T) =>
    () =>
      stores.failing ? Promise.reject(stores.failing) : Promise.resolve(value());
  const queues = {
    all: () => stores.queues,
    queue: () => stores.queues[0],
  } as unknown as JobQueues;
  const videos = {
    oldestDuePurge: answer(() => stores.oldestDuePurge),
    countDuePurges: (_now: Date, cap: number) => {
      stores.countCaps.push(cap);
      return answer(() => stores.duePurges)();
    },
  } as unknown as VideoRepository;
  const outbox = {
    undeliveredCounts: answer(() => ({ pending: 1, failing: 2, dead: 3 })),
  } as unknown as OutboxRepository;
  const erasures = {
    unfinishedStates: ['running', 'purging'],
    unfinishedSummary: answer(() => stores.erasures),
  } as unknown as ErasureRepository;
  const trash = {
    unfinishedStates: ['running'],
    unfinishedSummary: answer(() => stores.trash),
  } as unknown as TrashOperationRepository;
  const metrics = new MetricsService();
  const config = { METRICS_REFRESH_INTERVAL_MS: 15_000 } as AppConfig;
  const stored = new StoredMetrics(metrics, queues, videos, outbox, erasures, trash, config);
  /** Each series of a metric, as `{label="value",…} value` lines in label order. */
  const series = async (name: string) =>
    (await metrics.registry.getSingleMetric(name)!.get()).values.map(
      ({ labels, value }) =>
        `{${Object.entries(labels)
          .map(([label, v]) => `${label}="${v}"`)
          .join(',')}} ${value}`,
    );
  return { stored, stores, series };
}

describe('StoredMetrics', () => {
  let now = NOW;

  beforeEach(() => {
    now = NOW;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
  });
  afterEach(() => jest.restoreAllMocks());

  it('ages the job next in line of each queue from when it became ready, 0 for a queue where none waits', async () => {
    const { stored, stores, series } = storedMetrics();
    stores.queues = [
      fakeQueue('video-deletion', [{ timestamp: ago(3_600).getTime(), opts: { delay: 3_540_000 } }]),
      fakeQueue('webhooks'),
    ];
    await stored.refresh();
    expect(await series('queue_oldest_waiting_seconds')).toEqual([
      '{queue="video-deletion"} 60',
      '{queue="webhooks"} 0',
    ]);
    now += 15_000;
    expect((await series('queue_oldest_waiting_seconds'))[0]).toBe('{queue="video-deletion"} 75');
  });

  it('counts due purges up to DUE_PURGES_COUNTED, beside the lag of the oldest', async () => {
    const { stored, stores, series } = storedMetrics();
    stores.oldestDuePurge = ago(90);
    stores.duePurges = 42;
    await stored.refresh();
    expect(stores.countCaps).toEqual([DUE_PURGES_COUNTED]);
    expect(await series('purges_due')).toEqual(['{} 42']);
    expect(await series('purge_lag_seconds')).toEqual(['{} 90']);
  });

  it('gives every unfinished state of erasures and trash operations its series, with how many, the oldest and the idlest', async () => {
    const { stored, stores, series } = storedMetrics();
    stores.erasures = [{ state: 'running', count: 2, oldestStartedAt: ago(600), stalestUpdatedAt: ago(30) }];
    await stored.refresh();
    expect(await series('bulk_operations_unfinished')).toEqual([
      '{operation="erasure",state="running"} 2',
      '{operation="erasure",state="purging"} 0',
      '{operation="trash",state="running"} 0',
    ]);
    expect(await series('bulk_operation_oldest_seconds')).toEqual([
      '{operation="erasure",state="running"} 600',
      '{operation="erasure",state="purging"} 0',
      '{operation="trash",state="running"} 0',
    ]);
    expect(await series('bulk_operation_idle_seconds')).toEqual([
      '{operation="erasure",state="running"} 30',
      '{operation="erasure",state="purging"} 0',
      '{operation="trash",state="running"} 0',
    ]);

    // The erasure has moved on to purging; its running series go back to 0.
    stores.erasures = [{ state: 'purging', count: 1, oldestStartedAt: ago(900), stalestUpdatedAt: ago(120) }];
    await stored.refresh();
    expect(await series('bulk_operation_idle_seconds')).toEqual([
      '{operation="erasure",state="running"} 0',
      '{operation="erasure",state="purging"} 120',
      '{operation="trash",state="running"} 0',
    ]);
  });

  it('stamps each metric of a read when it succeeds, and keeps the last values and stamps when it fails', async () => {
    const { stored, stores, series } = storedMetrics();
    stores.duePurges = 7;
    await stored.refresh();
    const stamps = await series('metrics_refreshed_timestamp_seconds');
    for (const metric of [
      'queue_jobs',
      'queue_startable_jobs',
      'queue_oldest_waiting_seconds',
      'purge_lag_seconds',
      'purges_due',
      'deletions_failing',
      'bulk_operations_unfinished',
      'bulk_operation_oldest_seconds',
      'bulk_operation_idle_seconds',
      'webhook_deliveries_undelivered',
    ]) {
      expect(stamps).toContain(`{metric="${metric}"} ${NOW / 1_000}`);
    }

    const warned = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    stores.failing = new Error('MySQL is away');
    stores.duePurges = 8;
    now += 15_000;
    await stored.refresh();
    expect(await series('purges_due')).toEqual(['{} 7']);
    const after = await series('metrics_refreshed_timestamp_seconds');
    expect(after).toContain(`{metric="purges_due"} ${NOW / 1_000}`);
    // Redis still answers: the queues' reads went on.
    expect(after).toContain(`{metric="queue_jobs"} ${now / 1_000}`);
    expect(warned).toHaveBeenCalledWith(
      { metrics: ['purges_due'], err: 'Error: MySQL is away' },
      'metric not refreshed: the last value stands',
    );
  });
});
