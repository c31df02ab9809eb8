import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { Worker, type Job } from 'bullmq';
import { APP_CONFIG } from '@app/shared/config/config.module';
import type { AppConfig } from '@app/shared/config/config.schema';
import { JobQueues, jitteredBackoff } from '@app/shared/queue/job-queues.service';
import { JOB_NAMES, JOB_QUEUES, type JobName } from '@app/shared/queue/jobs';
import { bullConnection } from '@app/shared/redis/redis';
import { assertOneHandlerPerJob, JOB_HANDLERS, type JobHandler } from './job-handler';

/**
 * Runs a BullMQ worker per queue and dispatches each job to its one handler. The periodic sweeps
 * are job schedulers: upserting the same scheduler id from every worker keeps exactly one schedule.
 */
@Injectable()
export class JobRunner implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(JobRunner.name);
  private readonly handlers: Map<JobName, JobHandler>;
  private readonly workers: Worker[] = [];

  constructor(
    @Inject(JOB_HANDLERS) handlers: JobHandler[],
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly queues: JobQueues,
  ) {
    assertOneHandlerPerJob(handlers, JOB_NAMES);
    this.handlers = new Map(handlers.map((handler) => [handler.name, handler]));
  }

  async onApplicationBootstrap(): Promise<void> {
    const queueNames = [...new Set(Object.values(JOB_QUEUES))];
    for (const queueName of queueNames) {
      const worker = new Worker(queueName, (job: Job) => this.dispatch(job), {
        connection: bullConnection(this.config.REDIS_URL),
        concurrency: this.config.WORKER_CONCURRENCY,
        // A killed worker's job is picked up again once its lock lapses.
        lockDuration: 15_000,
        stalledInterval: 15_000,
        maxStalledCount: 2,
        settings: { backoffStrategy: (attemptsMade: number) => jitteredBackoff(attemptsMade) },
      });
      worker.on('failed', (job, error) =>
        this.logger.warn(
          { jobId: job?.id, name: job?.name, attempts: job?.attemptsMade, err: error.message },
          'job failed',
        ),
      );
      worker.on('error', (error) =>
        this.logger.error({ err: error.message, queue: queueName }, 'worker error'),
      );
      this.workers.push(worker);
    }
    await this.scheduleSweeps();
  }

  private async scheduleSweeps(): Promise<void> {
    const schedules: [JobName, number][] = [
      ['purge-sweep', this.config.PURGE_SWEEP_INTERVAL_MS],
      ['orphan-sweep', this.config.ORPHAN_SWEEP_INTERVAL_MS],
      ['reconcile-index', this.config.RECONCILE_INTERVAL_MS],
    ];
    for (const [name, every] of schedules) {
      await this.queues.queue(JOB_QUEUES[name]).upsertJobScheduler(name, { every }, { name, data: {} });
    }
  }

  private dispatch(job: Job): Promise<unknown> {
    const handler = this.handlers.get(job.name as JobName);
    if (!handler) throw new Error(`No handler for job ${job.name}`);
    return handler.handle(job.data as never, job as never);
  }

  /** Stops taking jobs and lets the active ones finish (BullMQ's close waits for them). */
  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.close()));
  }
}
