import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { Gauge } from 'prom-client';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { ErasureRepository } from '../erasure/erasure.repository';
import { OutboxRepository } from '../events/outbox.repository';
import { JobQueues } from '../queue/job-queues.service';
import { JOBS } from '../queue/jobs';
import { nextInLineReadySince } from '../queue/queue-age';
import { startableJobs } from '../queue/ready-work';
import { TrashOperationRepository } from '../trash/trash-operation.repository';
import type { UnfinishedOperations } from '../video/bulk-operation.repository';
import { VideoRepository } from '../video/video.repository';
import { ageGauge } from './age-gauge';
import { MetricsService } from './metrics.service';

const JOB_STATES = [
  'waiting',
  'active',
  'delayed',
  'failed',
  'completed',
  'prioritized',
  'waiting-children',
] as const;

/**
 * Purges due are counted up to this many: beyond it the backlog's size changes nothing an operator
 * does (purge_lag_seconds says how late it is), and the count stays a bounded read of the index.
 */
export const DUE_PURGES_COUNTED = 10_000;

/** The metrics' name for each kind of durable operation on an author's videos (bulk-operation.ts). */
interface Operations {
  operation: 'erasure' | 'trash';
  repository: {
    readonly unfinishedStates: readonly string[];
    unfinishedSummary(): Promise<UnfinishedOperations<string>[]>;
  };
}

/** What one read from a store sets: its metrics, by name, each refreshed when the read succeeds. */
export interface StoredSource {
  metrics: readonly string[];
  read(): Promise<void>;
}

/**
 * The metrics read from MySQL and Redis (queue sizes and ages, purge lag and purges due, failing
 * deletions, unfinished erasures and trash operations, undelivered webhooks; those another module
 * `add`s, as the API's points in time), read again every
 * METRICS_REFRESH_INTERVAL_MS in the background (docs/contract.md §9). A scrape only serialises the registry: however often and by however many scrapers, the stores
 * see one read of each per interval and process, and a scrape never waits for a slow store.
 *
 * A read that fails keeps the last value, and `metrics_refreshed_timestamp_seconds` says when each
 * metric was last read, so an alert can tell a stale value (a store down, a read hanging) from a
 * true one. A read still under way when the next is due is not started again, so a store that
 * hangs gets one read at a time.
 */
@Injectable()
export class StoredMetrics implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(StoredMetrics.name);
  private readonly sources: StoredSource[];
  private readonly reading = new Set<StoredSource>();
  private readonly refreshed: Gauge<'metric'>;
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    metrics: MetricsService,
    queues: JobQueues,
    videos: VideoRepository,
    outbox: OutboxRepository,
    erasures: ErasureRepository,
    trash: TrashOperationRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    const registers = [metrics.registry];
    this.refreshed = new Gauge({
      name: 'metrics_refreshed_timestamp_seconds',
      help: 'When each metric read from MySQL or Redis was last read (Unix seconds); older than a few refresh intervals means stale',
      labelNames: ['metric'] as const,
      registers,
    });
    const queueJobs = new Gauge({
      name: 'queue_jobs',
      help: 'Jobs in each queue by state',
      labelNames: ['queue', 'state'] as const,
      registers,
    });
    const startable = new Gauge({
      name: 'queue_startable_jobs',
      help: 'Jobs a worker would start now in each queue (waiting, prioritized, delayed ones due); 0 while the queue is paused. The worker autoscaler reads it',
      labelNames: ['queue'] as const,
      registers,
    });
    const queueAge = ageGauge({
      name: 'queue_oldest_waiting_seconds',
      help: 'How long the job next in line in each queue (waiting or prioritized) has been ready to run (0 when none waits)',
      labelNames: ['queue'] as const,
      registers,
    });
    const purgeLag = ageGauge({
      name: 'purge_lag_seconds',
      help: 'Now minus the oldest purge date that has passed without the video being purged (0 when none)',
      registers,
    });
    const purgesDue = new Gauge({
      name: 'purges_due',
      help: `Soft-deleted videos whose purge date has passed and whose purge has not started, counted up to ${DUE_PURGES_COUNTED}`,
      registers,
    });
    const operationLabels = ['operation', 'state'] as const;
    const unfinishedOperations = new Gauge({
      name: 'bulk_operations_unfinished',
      help: 'Unfinished erasures (running, purging) and trash operations (running), by operation and state',
      labelNames: operationLabels,
      registers,
    });
    const oldestOperation = ageGauge({
      name: 'bulk_operation_oldest_seconds',
      help: 'Now minus when the oldest unfinished operation of each operation and state was asked for (0 when none)',
      labelNames: operationLabels,
      registers,
    });
    const idleOperation = ageGauge({
      name: 'bulk_operation_idle_seconds',
      help: 'Now minus the least recent progress (a batch, or the move to its state) among the unfinished operations of each operation and state (0 when none)',
      labelNames: operationLabels,
      registers,
    });
    const operations: Operations[] = [
      { operation: 'erasure', repository: erasures },
      { operation: 'trash', repository: trash },
    ];
    const deletionsFailing = new Gauge({
      name: 'deletions_failing',
      help: 'Deletion jobs that used up their retries and wait for the sweep to retry them',
      registers,
    });
    const undelivered = new Gauge({
      name: 'webhook_deliveries_undelivered',
      help: 'Webhook deliveries not yet delivered, from MySQL: pending (not yet attempted), failing (being retried), dead',
      labelNames: ['state'] as const,
      registers,
    });
    this.sources = [
      {
        metrics: ['queue_jobs'],
        async read() {
          for (const queue of queues.all()) {
            const counts = await queue.getJobCounts(...JOB_STATES);
            for (const state of JOB_STATES) queueJobs.set({ queue: queue.name, state }, counts[state] ?? 0);
          }
        },
      },
      {
        metrics: ['queue_startable_jobs'],
        async read() {
          for (const queue of queues.all()) startable.set({ queue: queue.name }, await startableJobs(queue));
        },
      },
      {
        metrics: ['queue_oldest_waiting_seconds'],
        async read() {
          for (const queue of queues.all())
            queueAge({ queue: queue.name }, await nextInLineReadySince(queue));
        },
      },
      {
        metrics: ['purge_lag_seconds'],
        async read() {
          purgeLag({}, await videos.oldestDuePurge(new Date()));
        },
      },
      {
        metrics: ['purges_due'],
        async read() {
          purgesDue.set(await videos.countDuePurges(new Date(), DUE_PURGES_COUNTED));
        },
      },
      {
        metrics: ['deletions_failing'],
        async read() {
          deletionsFailing.set(await queues.queue(JOBS['delete-video'].queue).getFailedCount());
        },
      },
      {
        metrics: [
          'bulk_operations_unfinished',
          'bulk_operation_oldest_seconds',
          'bulk_operation_idle_seconds',
        ],
        async read() {
          for (const { operation, repository } of operations) {
            const byState = new Map((await repository.unfinishedSummary()).map((row) => [row.state, row]));
            // Every unfinished state has its series, 0 when none is in it, so a panel never goes blank.
            for (const state of repository.unfinishedStates) {
              const found = byState.get(state);
              unfinishedOperations.set({ operation, state }, found?.count ?? 0);
              oldestOperation({ operation, state }, found?.oldestStartedAt ?? null);
              idleOperation({ operation, state }, found?.stalestUpdatedAt ?? null);
            }
          }
        },
      },
      {
        metrics: ['webhook_deliveries_undelivered'],
        async read() {
          const counts = await outbox.undeliveredCounts();
          for (const [state, count] of Object.entries(counts)) undelivered.set({ state }, count);
        },
      },
    ];
  }

  /**
   * A read of another module's, refreshed with these: the API's points in time (`PointInTimeMetrics`).
   * Added while the application is built, it is in the first read at start.
   */
  add(source: StoredSource): void {
    this.sources.push(source);
  }

  onApplicationBootstrap(): void {
    // Not awaited: a store that is down at start must not hold the process back.
    void this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.config.METRICS_REFRESH_INTERVAL_MS);
    this.timer.unref();
  }

  /** Before the connections close: no read starts after this, and one that fails now is not news. */
  onModuleDestroy(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  /** Reads every metric not already being read; never rejects. */
  async refresh(): Promise<void> {
    await Promise.all(this.sources.filter((source) => !this.reading.has(source)).map((s) => this.read(s)));
  }

  private async read(source: StoredSource): Promise<void> {
    this.reading.add(source);
    try {
      await source.read();
      for (const metric of source.metrics) this.refreshed.set({ metric }, Date.now() / 1000);
    } catch (error) {
      if (!this.stopped) {
        this.logger.warn(
          { metrics: source.metrics, err: String(error) },
          'metric not refreshed: the last value stands',
        );
      }
    } finally {
      this.reading.delete(source);
    }
  }
}
