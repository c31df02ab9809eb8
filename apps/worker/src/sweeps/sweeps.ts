import type { Provider, Type } from '@nestjs/common';
import type { JobSchedulerJson } from 'bullmq';
import type { AppConfig } from '@app/shared/config/config.schema';
import { QUEUES, type QueueName } from '@app/shared/queue/queues';
import { ReconcileIndexHandler } from '../index/reconcile-index.handler';
import { WebhookSweepHandler } from '../webhooks/webhook-sweep.handler';
import { ErasureSweepHandler } from './erasure-sweep.handler';
import { ExpungeSweepHandler } from './expunge-sweep.handler';
import { OrphanSweepHandler } from './orphan-sweep.handler';
import { OutboxPruneHandler } from './outbox-prune.handler';
import { PurgeSweepHandler } from './purge-sweep.handler';
import type { SweepHandler } from './sweep-handler';
import { TrashSweepHandler } from './trash-sweep.handler';

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
 * Every periodic job of the worker, by its job name (which is also its scheduler's id in Redis).
 * The worker derives everything else from this table: the handlers it provides, the schedules it
 * upserts at start (and re-creates when Redis lost them), and the dispatch of each run. Adding a
 * sweep is its handler, one line here and, if it needs one, its interval in the configuration.
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
} as const satisfies Record<string, Sweep>;

export type SweepName = keyof typeof SWEEPS;

/**
 * Whether a schedule Redis holds still fits the configured interval: the same interval, and its
 * runs' offset within one interval (BullMQ keeps the offset a longer interval gave the schedule).
 */
export function keepsItsSlot(stored: Pick<JobSchedulerJson, 'every' | 'offset'>, interval: number): boolean {
  return stored.every === interval && (stored.offset ?? 0) < interval;
}

/**
 * Whether a schedule Redis holds has stopped making runs: its next run was due more than `graceMs`
 * ago. A run is made when the one before it starts; a failover that lost that run's job (Redis
 * replicates after answering) leaves the schedule in place with nothing to run it.
 */
export function isOverdue(stored: Pick<JobSchedulerJson, 'next'>, now: number, graceMs: number): boolean {
  return stored.next !== undefined && now - stored.next > graceMs;
}

export const SWEEP_NAMES = Object.keys(SWEEPS) as SweepName[];

/** Each sweep's handler instance, by the sweep's name. */
export const SWEEP_HANDLERS = Symbol('SWEEP_HANDLERS');

export type SweepHandlers = ReadonlyMap<SweepName, SweepHandler>;

const handlerClasses = SWEEP_NAMES.map((name) => SWEEPS[name].handler);

/** The sweeps' handlers, and SWEEP_HANDLERS over them. */
export const SWEEP_PROVIDERS: Provider[] = [
  ...handlerClasses,
  {
    provide: SWEEP_HANDLERS,
    inject: handlerClasses,
    useFactory: (...handlers: SweepHandler[]): SweepHandlers =>
      new Map(SWEEP_NAMES.map((name, i) => [name, handlers[i]!])),
  },
];
