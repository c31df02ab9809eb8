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
import { OutboxRepository } from '../events/outbox.repository';
import { JobQueues } from '../queue/job-queues.service';
import { JOB_QUEUES } from '../queue/jobs';
import { VideoRepository } from '../video/video.repository';
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

/** One metric read from a store, by its name. */
interface Source {
  metric: string;
  read(): Promise<void>;
}

/**
 * The metrics read from MySQL and Redis (queue sizes, purge lag, failing deletions, undelivered
 * webhooks), read again every METRICS_REFRESH_INTERVAL_MS in the background (docs/contract.md §9).
 * A scrape only serialises the registry: however often and by however many scrapers, the stores
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
  private readonly sources: Source[];
  private readonly reading = new Set<Source>();
  private readonly refreshed: Gauge<'metric'>;
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    metrics: MetricsService,
    queues: JobQueues,
    videos: VideoRepository,
    outbox: OutboxRepository,
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
    let oldestDuePurge: Date | null = null;
    new Gauge({
      name: 'purge_lag_seconds',
      help: 'Now minus the oldest purge date that has passed without the video being purged (0 when none)',
      registers,
      // From the date last read but at scrape time, so the lag grows between two reads as it does.
      collect() {
        this.set(oldestDuePurge ? Math.max(0, (Date.now() - oldestDuePurge.getTime()) / 1000) : 0);
      },
    });
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
        metric: 'queue_jobs',
        async read() {
          for (const queue of queues.all()) {
            const counts = await queue.getJobCounts(...JOB_STATES);
            for (const state of JOB_STATES) queueJobs.set({ queue: queue.name, state }, counts[state] ?? 0);
          }
        },
      },
      {
        metric: 'purge_lag_seconds',
        async read() {
          oldestDuePurge = await videos.oldestDuePurge(new Date());
        },
      },
      {
        metric: 'deletions_failing',
        async read() {
          deletionsFailing.set(await queues.queue(JOB_QUEUES['delete-video']).getFailedCount());
        },
      },
      {
        metric: 'webhook_deliveries_undelivered',
        async read() {
          const counts = await outbox.undeliveredCounts();
          for (const [state, count] of Object.entries(counts)) undelivered.set({ state }, count);
        },
      },
    ];
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
  private async refresh(): Promise<void> {
    await Promise.all(this.sources.filter((source) => !this.reading.has(source)).map((s) => this.read(s)));
  }

  private async read(source: Source): Promise<void> {
    this.reading.add(source);
    try {
      await source.read();
      this.refreshed.set({ metric: source.metric }, Date.now() / 1000);
    } catch (error) {
      if (!this.stopped) {
        this.logger.warn(
          { metric: source.metric, err: String(error) },
          'metric not refreshed: the last value stands',
        );
      }
    } finally {
      this.reading.delete(source);
    }
  }
}
