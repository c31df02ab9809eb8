import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/** How long one serialisation of the registry answers every scrape (see `scrape`). */
export const SCRAPE_REUSE_MS = 1_000;

/**
 * Every Prometheus metric of a process, on its own registry: what this process counts and times
 * itself. Those read from MySQL and Redis are `StoredMetrics`', refreshed on an interval.
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

  readonly workerRepairs = new Counter({
    name: 'worker_repairs_total',
    help: "What this worker's self-check repaired after a Redis fault: consumer_replaced, schedule_missing, schedule_overdue, receiver_limit_missing",
    labelNames: ['repair'] as const,
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

  /** The last serialisation of the registry, and when it started (performance.now()). */
  private latest?: { at: number; text: Promise<string> };

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /**
   * The registry in the Prometheus text format, serialised at most once per SCRAPE_REUSE_MS: a
   * scrape within that time of the last serialisation (or during it) gets the same text. A
   * serialisation costs a busy API noticeable CPU (the event-loop-delay percentiles most), so
   * frequent scrapes would take it from requests (the `metrics-scrape` step of docs/benchmarks.md);
   * Prometheus scrapes every few seconds at most, so it never sees a repeat.
   */
  scrape(): Promise<string> {
    const now = performance.now();
    if (!this.latest || now - this.latest.at >= SCRAPE_REUSE_MS) {
      this.latest = { at: now, text: this.registry.metrics() };
    }
    return this.latest.text;
  }
}
