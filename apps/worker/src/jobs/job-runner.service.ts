import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { Worker, type Job, type Queue } from 'bullmq';
import { APP_CONFIG } from '@app/shared/config/config.module';
import { tracingOn, type AppConfig } from '@app/shared/config/config.schema';
import { JOB_BACKOFF, JobQueues } from '@app/shared/queue/job-queues.service';
import { jitteredBackoff } from '@app/shared/util/backoff';
import { MetricsService } from '@app/shared/metrics/metrics.service';
import { processTraced } from '@app/shared/queue/job-trace';
import { JOBS } from '@app/shared/queue/jobs';
import { QUEUES, type QueueName } from '@app/shared/queue/queues';
import { readyJobs } from '@app/shared/queue/ready-work';
import { HANDLERS, SWEEP_NAMES, SWEEPS, type Handlers, type Sweep } from './registry';
import { isOverdue, keepsItsSlot } from './schedules';
import { checkConsumer, type ConsumerWatch } from './stuck-worker';

/**
 * Runs a BullMQ worker per queue and dispatches each job to its one handler (`HANDLERS`, from the
 * tables of registry.ts). The periodic sweeps (`SWEEPS`) are job schedulers: upserting the same
 * scheduler id from every worker keeps exactly one schedule.
 * Each queue has slots of its own: erasures ERASURE_CONCURRENCY, every other queue WORKER_CONCURRENCY
 * per process; each webhook receiver's queue WEBHOOK_CONCURRENCY across all processes together, so
 * that adding workers never adds load on a receiver.
 */
@Injectable()
export class JobRunner implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(JobRunner.name);
  /** Each queue's consumer in this process, with what the self-check remembers of it. */
  private readonly consumers = new Map<QueueName, { worker: Worker; watch: ConsumerWatch }>();
  /** Jobs running now, with the lock token that lets this worker hand them back. */
  private readonly active = new Map<Job, string | undefined>();
  private scheduleCheck?: NodeJS.Timeout;
  /** Set once shutdown begins: no consumer is started after it. */
  private closing = false;
  /** Whether this process traces: each job then runs within a span, the child of its sender's. */
  private readonly tracing: boolean;

  constructor(
    @Inject(HANDLERS) private readonly handlers: Handlers,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly queues: JobQueues,
    private readonly metrics: MetricsService,
  ) {
    this.tracing = tracingOn(config);
  }

  async onApplicationBootstrap(): Promise<void> {
    const queueNames: QueueName[] = [
      ...new Set([...Object.values(JOBS), ...Object.values(SWEEPS)].map(({ queue }) => queue)),
      ...this.queues.receiverQueues().map((receiver) => receiver.name),
    ];
    // Before any consumer starts: the first deliveries already respect the cap.
    await this.queues.limitReceivers(this.config.WEBHOOK_CONCURRENCY);
    for (const queueName of queueNames) this.startConsumer(queueName);
    await this.scheduleSweeps();
    // Redis may lose keys while this worker runs (a flush, a failover before the replica had
    // everything): a schedule that is missing, or overdue with no run left, is re-created, and so
    // runs at once, within one check interval. A consumer a failover left parked is replaced, and
    // a receiver's lost cap is set again.
    this.scheduleCheck = setInterval(() => {
      this.restoreReceiverLimits().catch((error: unknown) =>
        this.logger.warn({ err: String(error) }, 'receiver limit check failed'),
      );
      this.scheduleSweeps({ repair: true }).catch((error: unknown) =>
        this.logger.warn({ err: String(error) }, 'schedule check failed'),
      );
      this.replaceStuckConsumers().catch((error: unknown) =>
        this.logger.warn({ err: String(error) }, 'consumer check failed'),
      );
    }, this.config.SCHEDULE_CHECK_INTERVAL_MS);
    this.scheduleCheck.unref();
  }

  private async restoreReceiverLimits(): Promise<void> {
    const restored = await this.queues.limitReceivers(this.config.WEBHOOK_CONCURRENCY, { ifMissing: true });
    for (const queue of restored) {
      this.logger.warn({ queue }, 'receiver concurrency missing from Redis: set again');
      this.metrics.workerRepairs.inc({ repair: 'receiver_limit_missing' });
    }
  }

  /** Starts the queue's consumer in this process (BullMQ's `Worker`), in place of any before it. */
  private startConsumer(queueName: QueueName): void {
    const worker = new Worker(queueName, (job: Job, token?: string) => this.dispatch(job, token), {
      ...this.queues.connection(queueName),
      concurrency: this.concurrency(queueName),
      // A killed worker's job is picked up again once its lock lapses.
      lockDuration: 15_000,
      stalledInterval: 15_000,
      maxStalledCount: 2,
      settings: { backoffStrategy: (attemptsMade: number) => jitteredBackoff(attemptsMade, JOB_BACKOFF) },
    });
    const consumer = { worker, watch: { takenAt: Date.now() } as ConsumerWatch };
    worker.on('active', () => (consumer.watch.takenAt = Date.now()));
    worker.on('failed', (job, error) =>
      this.logger.warn(
        { jobId: job?.id, name: job?.name, attempts: job?.attemptsMade, err: error.message },
        'job failed',
      ),
    );
    worker.on('error', (error) =>
      this.logger.error({ err: error.message, queue: queueName }, 'worker error'),
    );
    this.consumers.set(queueName, consumer);
  }

  /**
   * Replaces each consumer that has taken no job for `STUCK_AFTER_MS` while it had a free slot and
   * jobs waited (`checkConsumer`). The old one is closed without waiting for it: it runs nothing.
   */
  private async replaceStuckConsumers(): Promise<void> {
    for (const [queueName, consumer] of this.consumers) {
      const running = [...this.active.keys()].filter((job) => job.queueName === queueName).length;
      // A receiver's queue whose shared slots other workers hold has no slot for this one.
      const atLimit =
        this.isReceiverQueue(queueName) &&
        (await this.queues.receiverAtLimit(queueName, this.config.WEBHOOK_CONCURRENCY));
      const waiting = atLimit ? 0 : await readyJobs(this.queues.queue(queueName));
      const { watch, stuck } = checkConsumer(consumer.watch, { waiting, running, now: Date.now() });
      consumer.watch = watch;
      if (!stuck || this.closing || this.consumers.get(queueName) !== consumer) continue;
      this.logger.error(
        { queue: queueName, waiting, idleMs: Date.now() - watch.takenAt },
        'consumer took no job while jobs waited: replaced',
      );
      this.metrics.workerRepairs.inc({ repair: 'consumer_replaced' });
      this.startConsumer(queueName);
      consumer.worker.close(true).catch(() => undefined);
    }
  }

  /** Jobs of the queue this process runs at once: long walks of batches and each receiver's deliveries have their own. */
  private concurrency(queueName: QueueName): number {
    if (queueName === QUEUES.trash) return this.config.TRASH_CONCURRENCY;
    if (queueName === QUEUES.erasure) return this.config.ERASURE_CONCURRENCY;
    if (this.isReceiverQueue(queueName)) return this.config.WEBHOOK_CONCURRENCY;
    return this.config.WORKER_CONCURRENCY;
  }

  private isReceiverQueue(queueName: QueueName): boolean {
    return this.queues.receiverQueues().some((receiver) => receiver.name === queueName);
  }

  /**
   * Upserts each sweep's schedule (at start, so a changed interval applies), or, to `repair`, only
   * those missing or overdue. A schedule made anew runs at once.
   */
  private async scheduleSweeps({ repair = false } = {}): Promise<void> {
    for (const name of SWEEP_NAMES) {
      const { queue: queueName, every, keep }: Sweep = SWEEPS[name];
      const interval = this.config[every];
      const queue = this.queues.queue(queueName);
      const stored = await queue.getJobScheduler(name);
      if (repair) {
        if (!stored) {
          this.logger.warn({ scheduler: name }, 'schedule missing from Redis: re-created');
          this.metrics.workerRepairs.inc({ repair: 'schedule_missing' });
        } else if (
          isOverdue(stored, Date.now(), this.config.SCHEDULE_CHECK_INTERVAL_MS) &&
          !(await this.runIsPending(queue, name, stored.next))
        ) {
          // Upserted as it is, it would wait for its next slot, up to an interval away: made anew,
          // it runs the run it missed now. A run of it already waiting still runs; sweeps repeat safely.
          await queue.removeJobScheduler(name);
          this.logger.warn({ scheduler: name, next: stored.next }, 'schedule overdue: re-created');
          this.metrics.workerRepairs.inc({ repair: 'schedule_overdue' });
        } else {
          continue;
        }
      } else if (stored && !keepsItsSlot(stored, interval)) {
        // BullMQ keeps a schedule's offset within its interval when the interval changes: one left
        // from a longer interval would put each late run up to that old interval away. It starts over.
        await queue.removeJobScheduler(name);
        this.logger.log({ scheduler: name, from: stored.every, to: interval }, 'schedule interval changed');
      }
      const opts = keep === undefined ? {} : { removeOnComplete: keep, removeOnFail: keep };
      await queue.upsertJobScheduler(name, { every: interval }, { name, data: {}, opts });
    }
  }

  /**
   * Whether the run a schedule is due to make is still in the queue to be run (a consumer that
   * took none of it is `replaceStuckConsumers`'s). BullMQ names a schedule's run
   * `repeat:<scheduler id>:<its time in ms>`.
   */
  private async runIsPending(queue: Queue, scheduler: string, next: number | undefined): Promise<boolean> {
    const run = await queue.getJob(`repeat:${scheduler}:${next}`);
    const state = run ? await run.getState() : 'unknown';
    return !['completed', 'failed', 'unknown'].includes(state);
  }

  private async dispatch(job: Job, token: string | undefined): Promise<unknown> {
    const handler = this.handlers.get(job.name);
    if (!handler) throw new Error(`No handler for job ${job.name}`);
    const stop = this.metrics.jobDuration.startTimer({ name: job.name });
    this.active.set(job, token);
    try {
      const result = await processTraced(this.tracing, job, () =>
        handler.handle(job.data as never, job as never),
      );
      stop({ outcome: 'completed' });
      return result;
    } catch (error) {
      stop({ outcome: 'failed' });
      this.metrics.jobFailures.inc({ name: job.name });
      throw error;
    } finally {
      this.active.delete(job);
    }
  }

  /**
   * First step of a shutdown (before any connection closes): stop taking jobs and let the active
   * ones finish. Jobs still running after SHUTDOWN_TIMEOUT_MS are handed back to the queue at once,
   * for another worker to take up; every job is idempotent, so a job cut off halfway loses nothing.
   */
  async onModuleDestroy(): Promise<void> {
    this.closing = true;
    clearInterval(this.scheduleCheck);
    const closed = Promise.all([...this.consumers.values()].map(({ worker }) => worker.close()));
    let timer: NodeJS.Timeout | undefined;
    const finished = await Promise.race([
      closed.then(() => true),
      new Promise<boolean>(
        (done) => (timer = setTimeout(() => done(false), this.config.SHUTDOWN_TIMEOUT_MS)),
      ),
    ]);
    clearTimeout(timer);
    if (finished) return;
    const jobs = [...this.active];
    await Promise.all(jobs.map(([job, token]) => job.moveToWait(token).catch(() => undefined)));
    this.logger.warn(
      { timeoutMs: this.config.SHUTDOWN_TIMEOUT_MS, jobs: jobs.map(([job]) => job.id) },
      'active jobs handed back at shutdown',
    );
  }
}
