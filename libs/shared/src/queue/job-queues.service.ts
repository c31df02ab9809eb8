import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Queue, type ConnectionOptions, type JobsOptions } from 'bullmq';
import { APP_CONFIG } from '../config/config.module';
import { tracingOn, type AppConfig } from '../config/config.schema';
import { endpointOf } from '../net/receiver-url';
import { bullConnection, closeRedisClient, type RedisClient, type RedisConfig } from '../redis/redis';
import type { Backoff } from '../util/backoff';
import { enqueue } from './enqueue';
import { sendTraced } from './job-trace';
import {
  deletionJobId,
  erasureJobId,
  deliveryJobId,
  JOBS,
  syncJobId,
  trashOperationJobId,
  type JobName,
  type JobPayloads,
} from './jobs';
import {
  QUEUE_PREFIX,
  QUEUES,
  queuePrefix,
  receiverQueueName,
  type QueueName,
  type ReceiverQueueName,
} from './queues';

/**
 * The steps of a failed job's retries: the worker's `jittered` backoff strategy runs
 * `jitteredBackoff` with them, so many failing deletions do not retry in lockstep against a
 * struggling store.
 */
export const JOB_BACKOFF: Backoff = { baseMs: 1_000, maxMs: 300_000 };

/** How many finished jobs a queue keeps of those `add` puts there, unless the caller says otherwise. */
export const ADDED_JOB_RETENTION = { removeOnComplete: 1_000, removeOnFail: 5_000 } satisfies JobsOptions;

/** Retries with exponential backoff and jitter (JOB_BACKOFF). */
const DELETION_JOB_OPTIONS: JobsOptions = {
  attempts: 8,
  backoff: { type: 'jittered', delay: JOB_BACKOFF.baseMs },
  removeOnComplete: { age: 3_600, count: 1_000 },
  // Failed deletions stay visible (dashboard, metrics) until the sweep retries them.
  removeOnFail: false,
};

/**
 * A durable operation's job (an erasure, a trash operation): removed when done or failed, so its
 * sweep can add it again while MySQL says the operation is unfinished.
 */
const OPERATION_JOB_OPTIONS: JobsOptions = {
  attempts: 3,
  backoff: { type: 'jittered', delay: JOB_BACKOFF.baseMs },
  removeOnComplete: true,
  removeOnFail: true,
};

/**
 * Deletion jobs of bulk work (an erasure, an emptied trash) wait behind every other deletion that is
 * due: BullMQ runs jobs without a priority before prioritized ones, so a purge falling due and a
 * single permanent delete overtake thousands of an erasure's deletions instead of queueing behind them.
 */
export const BULK_DELETION_PRIORITY = 10;

/** A configured webhook receiver's queue, and the receiver as rows may show it (no credentials). */
export interface ReceiverQueue {
  endpointKey: string;
  name: ReceiverQueueName;
  shownUrl: string;
}

/** The producer side of every queue. Used by the API, the worker and the CLI. */
@Injectable()
export class JobQueues implements OnApplicationShutdown {
  private readonly logger = new Logger(JobQueues.name);
  private readonly queues = new Map<QueueName, Queue>();
  /** Every queue this process may use: the fixed ones and each configured receiver's. */
  private readonly names: ReadonlySet<QueueName>;
  /** Each configured receiver's queue, by the receiver's key. */
  private readonly receivers = new Map<string, ReceiverQueue>();
  private readonly redis: RedisConfig;
  /** On a cluster, the one client every queue of this process shares (`bullConnection`), made at the first use. */
  private clusterConnection?: ConnectionOptions;
  /** Whether this process traces (OTEL_EXPORTER_OTLP_ENDPOINT): jobs then carry their sender's trace context. */
  private readonly tracing: boolean;

  constructor(
    @Inject(APP_CONFIG)
    config: RedisConfig & Pick<AppConfig, 'WEBHOOK_URLS' | 'OTEL_EXPORTER_OTLP_ENDPOINT'>,
  ) {
    this.redis = { REDIS_URL: config.REDIS_URL, REDIS_CLUSTER: config.REDIS_CLUSTER };
    this.tracing = tracingOn(config);
    for (const { key, url } of config.WEBHOOK_URLS.map(endpointOf)) {
      this.receivers.set(key, { endpointKey: key, name: receiverQueueName(key), shownUrl: url });
    }
    this.names = new Set([
      ...Object.values(QUEUES),
      ...[...this.receivers.values()].map((receiver) => receiver.name),
    ]);
  }

  /**
   * The queue, connected to Redis at its first use: a process that never enqueues (most CLI
   * commands) opens no connection, so it neither waits for Redis nor complains when it is away.
   */
  queue(name: QueueName): Queue {
    let queue = this.queues.get(name);
    if (!queue && this.names.has(name)) {
      queue = new Queue(name, this.connection(name));
      this.queues.set(name, queue);
    }
    return queue!;
  }

  /**
   * Where a queue's keys are in Redis, for its producer (`queue`) and its consumers (the worker's
   * `Worker`s): BullMQ's connection and the queue's key prefix (`queuePrefix`).
   */
  connection(name: QueueName): { connection: ConnectionOptions; prefix: string } {
    if (!this.redis.REDIS_CLUSTER) {
      return { connection: bullConnection(this.redis), prefix: QUEUE_PREFIX };
    }
    this.clusterConnection ??= bullConnection(this.redis);
    return { connection: this.clusterConnection, prefix: queuePrefix(name, true) };
  }

  all(): Queue[] {
    return [...this.names].map((name) => this.queue(name));
  }

  /** The configured receivers' queues (`WEBHOOK_URLS`), one per receiver. */
  receiverQueues(): ReceiverQueue[] {
    return [...this.receivers.values()];
  }

  /**
   * Caps each receiver's deliveries in flight at `concurrency` across every worker process: BullMQ's
   * global concurrency, kept in the queue's meta hash, which a worker checks before it takes a job.
   * A killed worker's jobs count until their locks lapse and the stalled check hands them back.
   * With `ifMissing`, only a queue whose cap Redis lost (a flush, a failover) is given it again, so
   * that the last worker started keeps setting it. Returns the queues given it.
   */
  async limitReceivers(concurrency: number, { ifMissing = false } = {}): Promise<string[]> {
    const limited: string[] = [];
    for (const { name } of this.receiverQueues()) {
      const queue = this.queue(name);
      if (ifMissing && (await queue.getGlobalConcurrency()) !== null) continue;
      await queue.setGlobalConcurrency(concurrency);
      limited.push(name);
    }
    return limited;
  }

  /**
   * Whether the receiver's queue runs as many deliveries as its cap allows, in all workers together:
   * a consumer with a free slot of its own then rightly takes nothing.
   */
  async receiverAtLimit(name: QueueName, concurrency: number): Promise<boolean> {
    return (await this.queue(name).getActiveCount()) >= concurrency;
  }

  /** Where a delivery to this receiver runs: its own queue, or the shared one if it is no longer configured. */
  deliveryQueue(endpointKey: string): Queue {
    return this.queue(this.receivers.get(endpointKey)?.name ?? JOBS['deliver-webhook'].queue);
  }

  async add<N extends JobName>(name: N, payload: JobPayloads[N], options: JobsOptions = {}): Promise<void> {
    await this.send(this.queue(JOBS[name].queue), name, payload, { ...ADDED_JOB_RETENTION, ...options });
  }

  /**
   * Where every job goes to Redis: with tracing on, within a `send` span whose context the job's
   * data keeps (`traceContext`), so that the worker's span for it joins the trace that asked for it
   * (docs/tracing.md). A job that already exists keeps the context it was queued with, as it keeps
   * its request id.
   */
  private async send<N extends JobName>(
    queue: Queue,
    name: N,
    payload: JobPayloads[N],
    options: JobsOptions,
  ): Promise<void> {
    await sendTraced(this.tracing, { queue: queue.name, name, id: options.jobId }, (traceContext) =>
      queue.add(name, traceContext ? { ...payload, traceContext } : payload, options),
    );
  }

  /**
   * Has the worker rewrite a video's index document from its row: `trigger` is the row's version
   * (one job per version) or `stale` (a search saw a document MySQL contradicts). Never throws and
   * waits at most QUEUE_TIMEOUT_MS: what is not queued, the reconciler repairs.
   */
  async queueIndexRepair(videoId: string, trigger: number | 'stale', requestId?: string): Promise<void> {
    const job = this.add(
      'sync-video',
      { videoId, ...(requestId ? { requestId } : {}) },
      {
        jobId: syncJobId(videoId, trigger),
        // A stale hit can recur after its repair ran: the id must be free again then.
        ...(trigger === 'stale' ? { removeOnComplete: true, removeOnFail: true } : {}),
      },
    );
    await enqueue(job, 'sync-video', { logger: this.logger, warn: `index repair for ${videoId} not queued` });
  }

  /**
   * Makes sure a deletion job for the video will run after `delayMs`: adds it, moves an existing
   * delayed job to the new time, or retries a failed one. Safe to call any number of times, from
   * any number of processes: the job id is the video's. A `bulk` deletion to run now waits behind
   * every other due deletion (`BULK_DELETION_PRIORITY`); a purge scheduled for later never does.
   */
  async ensureDeletionJob(
    videoId: string,
    delayMs: number,
    requestId?: string,
    { bulk = false }: { bulk?: boolean } = {},
  ): Promise<void> {
    const queue = this.queue(JOBS['delete-video'].queue);
    const jobId = deletionJobId(videoId);
    const existing = await queue.getJob(jobId);
    if (existing) {
      const state = await existing.getState();
      if (
        state === 'active' ||
        state === 'waiting' ||
        state === 'prioritized' ||
        state === 'waiting-children'
      )
        return;
      if (state === 'delayed') {
        if (delayMs <= 0) await existing.promote();
        else await existing.changeDelay(delayMs);
        return;
      }
      if (state === 'failed' && delayMs <= 0) {
        await existing.retry('failed');
        return;
      }
      // Completed, or failed but not due yet: replace it with a fresh job.
      await existing
        .remove()
        .catch((error: unknown) => this.logger.warn(`could not replace ${jobId}: ${String(error)}`));
    }
    await this.send(
      queue,
      'delete-video',
      { videoId, ...(requestId ? { requestId } : {}) },
      {
        ...DELETION_JOB_OPTIONS,
        jobId,
        delay: Math.max(0, delayMs),
        ...(bulk && delayMs <= 0 ? { priority: BULK_DELETION_PRIORITY } : {}),
      },
    );
  }

  /**
   * Makes sure one attempt of a webhook delivery will run after `delayMs`. A job of that attempt
   * that has already ended (a worker killed mid-attempt, an attempt that found its turn not yet
   * come) is replaced: MySQL says the attempt is still to be made. It runs on the receiver's queue.
   */
  async ensureDeliveryJob(
    delivery: { id: string; endpointKey: string },
    attempt: number,
    delayMs: number,
  ): Promise<void> {
    const deliveryId = delivery.id;
    const queue = this.deliveryQueue(delivery.endpointKey);
    const jobId = deliveryJobId(deliveryId, attempt);
    const existing = await queue.getJob(jobId);
    if (existing) {
      const state = await existing.getState();
      if (state === 'delayed' && delayMs <= 0) await existing.promote();
      if (state !== 'completed' && state !== 'failed') return;
      await existing.remove();
    }
    await this.send(
      queue,
      'deliver-webhook',
      { deliveryId, attempt },
      {
        jobId,
        delay: Math.max(0, delayMs),
        removeOnComplete: { count: 1_000 },
        // Failed attempts stay on the dashboard; MySQL keeps the delivery's whole history.
        removeOnFail: { count: 5_000 },
      },
    );
  }

  /** Makes sure an erasure's job exists (see OPERATION_JOB_OPTIONS). */
  async ensureErasureJob(erasureId: string, requestId?: string): Promise<void> {
    await this.add(
      'erase-author',
      { erasureId, ...(requestId ? { requestId } : {}) },
      { ...OPERATION_JOB_OPTIONS, jobId: erasureJobId(erasureId) },
    );
  }

  /** Makes sure a trash operation's job exists (see OPERATION_JOB_OPTIONS). */
  async ensureTrashJob(operationId: string, requestId?: string): Promise<void> {
    await this.add(
      'trash-operation',
      { operationId, ...(requestId ? { requestId } : {}) },
      { ...OPERATION_JOB_OPTIONS, jobId: trashOperationJobId(operationId) },
    );
  }

  /** Drops a pending purge; an active one finds the row restored and does nothing. */
  async cancelDeletionJob(videoId: string): Promise<void> {
    const job = await this.queue(JOBS['delete-video'].queue).getJob(deletionJobId(videoId));
    if (!job) return;
    const state = await job.getState();
    if (state === 'delayed' || state === 'waiting' || state === 'failed' || state === 'completed') {
      await job.remove().catch(() => undefined);
    }
  }

  /** Closes the queues opened so far. */
  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((queue) => queue.close()));
    // BullMQ leaves a client it was given open; the workers' copies of it are their own.
    if (this.clusterConnection) await closeRedisClient(this.clusterConnection as RedisClient);
  }

  /** After the HTTP server has drained and the workers have stopped: nothing enqueues any more. */
  onApplicationShutdown(): Promise<void> {
    return this.close();
  }
}
