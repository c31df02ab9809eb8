import type { Provider, Type } from '@nestjs/common';
import type { AppConfig } from '@app/shared/config/config.schema';
import type { JobHandler, SweepHandler } from '@app/shared/queue/job-handler';
import { JOB_NAMES, type JobName } from '@app/shared/queue/jobs';
import { QUEUES, type QueueName } from '@app/shared/queue/queues';
import { DeleteVideoHandler } from '../deletion/delete-video.handler';
import { OrphanSweepHandler } from '../deletion/orphan-sweep.handler';
import { PurgeSweepHandler } from '../deletion/purge-sweep.handler';
import { EraseAuthorHandler } from '../erasure/erase-author.handler';
import { ErasureSweepHandler } from '../erasure/erasure-sweep.handler';
import { ExpungeSweepHandler } from '../index/expunge-sweep.handler';
import { ReconcileIndexHandler } from '../index/reconcile-index.handler';
import { ReindexHandler } from '../index/reindex.handler';
import { SyncVideoHandler } from '../index/sync-video.handler';
import { TrashOperationHandler } from '../trash/trash-operation.handler';
import { TrashSweepHandler } from '../trash/trash-sweep.handler';
import { DeliverWebhookHandler } from '../webhooks/deliver-webhook.handler';
import { OutboxPruneHandler } from '../webhooks/outbox-prune.handler';
import { WebhookSweepHandler } from '../webhooks/webhook-sweep.handler';

/**
 * Each job that is asked for (`JOBS`: its payload and queue, libs/shared/src/queue/jobs.ts), by its
 * name: its handler. It does not compile until every job has one. This table and `SWEEPS` are the
 * worker's jobs, each once: the handlers it provides, the consumers it starts, the schedules it
 * keeps and the dispatch of each job are derived from them.
 */
export const JOB_HANDLERS: { readonly [N in JobName]: Type<JobHandler<N>> } = {
  'delete-video': DeleteVideoHandler,
  'sync-video': SyncVideoHandler,
  reindex: ReindexHandler,
  'erase-author': EraseAuthorHandler,
  'deliver-webhook': DeliverWebhookHandler,
  'trash-operation': TrashOperationHandler,
};

/** The configuration's settings that are intervals. */
type IntervalSetting = Extract<keyof AppConfig, `${string}_INTERVAL_MS`>;

export interface Sweep {
  /** Where its runs queue (and its scheduler lives). */
  queue: QueueName;
  /** How often it runs. */
  every: IntervalSetting;
  handler: Type<SweepHandler>;
  /** Completed and failed runs kept in Redis; all of them when not set (BullMQ's default). */
  keep?: number;
}

/**
 * Every periodic job, by its job name, which is also its scheduler's id in Redis (and never the
 * name of a job that is asked for: each name has one handler).
 */
export const SWEEPS = {
  'purge-sweep': { queue: QUEUES.maintenance, every: 'PURGE_SWEEP_INTERVAL_MS', handler: PurgeSweepHandler },
  // An erasure resumes, and one waiting for its purges completes, within the purge sweep's interval.
  'erasure-sweep': {
    queue: QUEUES.maintenance,
    every: 'PURGE_SWEEP_INTERVAL_MS',
    handler: ErasureSweepHandler,
  },
  // A trash operation resumes within the same interval after Redis lost its job.
  'trash-sweep': { queue: QUEUES.maintenance, every: 'PURGE_SWEEP_INTERVAL_MS', handler: TrashSweepHandler },
  'orphan-sweep': {
    queue: QUEUES.maintenance,
    every: 'ORPHAN_SWEEP_INTERVAL_MS',
    handler: OrphanSweepHandler,
  },
  'reconcile-index': {
    queue: QUEUES.maintenance,
    every: 'RECONCILE_INTERVAL_MS',
    handler: ReconcileIndexHandler,
  },
  // The webhook sweep runs every second or so: keep only its latest runs.
  'webhook-sweep': {
    queue: QUEUES.webhooks,
    every: 'WEBHOOK_SWEEP_INTERVAL_MS',
    handler: WebhookSweepHandler,
    keep: 100,
  },
  'outbox-prune': {
    queue: QUEUES.maintenance,
    every: 'OUTBOX_PRUNE_INTERVAL_MS',
    handler: OutboxPruneHandler,
  },
  // Deleted documents leave the engine's files; at most a day apart (the interval's bound).
  'expunge-deletes': {
    queue: QUEUES.maintenance,
    every: 'EXPUNGE_INTERVAL_MS',
    handler: ExpungeSweepHandler,
  },
} as const satisfies Record<string, Sweep> & { readonly [N in JobName]?: never };

export type SweepName = keyof typeof SWEEPS;

export const SWEEP_NAMES = Object.keys(SWEEPS) as SweepName[];

/** The sweeps' handlers: the worker's core provides them, so that a command or a test may run one. */
export const SWEEP_HANDLERS: Type<SweepHandler>[] = SWEEP_NAMES.map((name) => SWEEPS[name].handler);

/** Every handler instance, by its job's name: what the job runner dispatches to. */
export const HANDLERS = Symbol('HANDLERS');

export type Handlers = ReadonlyMap<string, JobHandler<JobName> | SweepHandler>;

const jobHandlers = JOB_NAMES.map((name) => JOB_HANDLERS[name]);

/**
 * What the worker process adds to the core: the handlers of the jobs that are asked for, and
 * `HANDLERS` over them and the sweeps' handlers.
 */
export const HANDLER_PROVIDERS: Provider[] = [
  ...jobHandlers,
  {
    provide: HANDLERS,
    inject: [...jobHandlers, ...SWEEP_HANDLERS],
    useFactory: (...handlers: (JobHandler<JobName> | SweepHandler)[]): Handlers =>
      new Map([...JOB_NAMES, ...SWEEP_NAMES].map((name, i) => [name, handlers[i]!])),
  },
];
