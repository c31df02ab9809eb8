import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { OutboxRepository } from '../events/outbox.repository';
import { JobQueues } from '../queue/job-queues.service';
import { JOB_QUEUES } from '../queue/jobs';
import { VideoRepository } from '../video/video.repository';

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
 * Every Prometheus metric of a process, on its own registry. Queue sizes, purge lag and failing
 * deletions are read at scrape time from Redis and MySQL, so every process reports the same truth.
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();

  readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  readonly jobDuration = new Histogram({
    name: 'job_duration_seconds',
    help: 'Duration of jobs run by this worker, by job name and outcome',
    labelNames: ['name', 'outcome'] as const,
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 1800],
    registers: [this.registry],
  });

  readonly jobFailures = new Counter({
    name: 'job_failures_total',
    help: 'Failed job attempts in this worker, by job name',
    labelNames: ['name'] as const,
    registers: [this.registry],
  });

  readonly searchItemCache = new Counter({
    name: 'search_item_cache_lookups_total',
    help: 'Search hits answered from rendered items (hit) or read in full from MySQL (miss); API only',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  readonly webhookAttempts = new Counter({
    name: 'webhook_delivery_attempts_total',
    help: 'Webhook delivery attempts made by this worker, by outcome (delivered, failed, dead)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  constructor(queues: JobQueues, videos: VideoRepository, outbox: OutboxRepository) {
    collectDefaultMetrics({ register: this.registry });
    new Gauge({
      name: 'queue_jobs',
      help: 'Jobs in each queue by state',
      labelNames: ['queue', 'state'] as const,
      registers: [this.registry],
      async collect() {
        for (const queue of queues.all()) {
          const counts = await queue.getJobCounts(...JOB_STATES);
          for (const state of JOB_STATES) this.set({ queue: queue.name, state }, counts[state] ?? 0);
        }
      },
    });
    new Gauge({
      name: 'purge_lag_seconds',
      help: 'Now minus the oldest purge date that has passed without the video being purged (0 when none)',
      registers: [this.registry],
      async collect() {
        const now = new Date();
        const oldest = await videos.oldestDuePurge(now);
        this.set(oldest ? Math.max(0, (now.getTime() - oldest.getTime()) / 1000) : 0);
      },
    });
    new Gauge({
      name: 'deletions_failing',
      help: 'Deletion jobs that used up their retries and wait for the sweep to retry them',
      registers: [this.registry],
      async collect() {
        this.set(await queues.queue(JOB_QUEUES['delete-video']).getFailedCount());
      },
    });
    new Gauge({
      name: 'webhook_deliveries_undelivered',
      help: 'Webhook deliveries not yet delivered, from MySQL: pending (not yet attempted), failing (being retried), dead',
      labelNames: ['state'] as const,
      registers: [this.registry],
      async collect() {
        const counts = await outbox.undeliveredCounts();
        for (const [state, count] of Object.entries(counts)) this.set({ state }, count);
      },
    });
  }
}
