import { QUEUES, type QueueName } from './queues';

/** One job's entry in `JOBS`: its home queue; its payload is a type only (`JobPayloads`). */
interface JobEntry<P extends object> {
  readonly queue: QueueName;
  readonly payload?: P;
}

const job = <P extends object>(queue: QueueName): JobEntry<P> => ({ queue });

/**
 * Every job that is asked for (by the API, the worker, the CLI): its payload and its home queue.
 * The worker's table of handlers (`JOB_HANDLERS`, apps/worker/src/jobs/registry.ts) will not
 * compile until each has its handler. The worker's periodic jobs, which take no payload, are a
 * table beside it (`SWEEPS`).
 */
export const JOBS = {
  /** Permanent deletion of one video: at its purge date (delayed) or at once. */
  'delete-video': job<{ videoId: string; requestId?: string }>(QUEUES.deletion),
  /** Bring one video's index document in line with its row. */
  'sync-video': job<{ videoId: string; requestId?: string }>(QUEUES.index),
  /** Rebuild the whole index from MySQL into a new index and swap the alias. */
  reindex: job<Record<string, never>>(QUEUES.maintenance),
  /**
   * One attempt of one webhook delivery; `attempt` is the number of attempts MySQL has recorded
   * before it. It runs on its receiver's queue (`receiverQueueName`), this one only for receivers
   * no longer configured.
   */
  'deliver-webhook': job<{ deliveryId: string; attempt: number }>(QUEUES.webhooks),
  /** Work off one author erasure, a batch at a time, until every video has been moved. */
  'erase-author': job<{ erasureId: string; requestId?: string }>(QUEUES.erasure),
  /** Work off one trash operation (restore all, empty), a batch at a time, until the trash it covers is done. */
  'trash-operation': job<{ operationId: string; requestId?: string }>(QUEUES.trash),
} as const;

export type JobName = keyof typeof JOBS;

/** Each job's payload, by its name. */
export type JobPayloads = { [N in JobName]: NonNullable<(typeof JOBS)[N]['payload']> };

export const JOB_NAMES = Object.keys(JOBS) as JobName[];

/** One deletion job per video: BullMQ ignores a second add with the same id. (Ids may not contain ':'.) */
export function deletionJobId(videoId: string): string {
  return `delete-${videoId}`;
}

/** One job per unfinished erasure: a second add (the API's, the sweep's) while it waits or runs is ignored. */
export function erasureJobId(erasureId: string): string {
  return `erase-${erasureId}`;
}

/** One job per unfinished trash operation: a second add (the API's, the sweep's) while it waits or runs is ignored. */
export function trashOperationJobId(operationId: string): string {
  return `trash-${operationId}`;
}

/** One job per delivery attempt: a failed attempt's job stays visible, and the next attempt has its own. */
export function deliveryJobId(deliveryId: string, attempt: number): string {
  return `webhook-${deliveryId}-${attempt}`;
}

/** One sync job per video and version (or per kind of trigger, like a stale search hit). */
export function syncJobId(videoId: string, version: number | 'stale'): string {
  return `sync-${videoId}-${version}`;
}
