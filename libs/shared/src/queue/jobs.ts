import { QUEUES, type QueueName } from './queues';

/**
 * Every job that is asked for (by the API, the worker, the CLI), with its payload. The worker fails
 * at start unless each has exactly one handler. The worker's periodic jobs, which take no payload,
 * are one table beside their handlers (`SWEEPS`, apps/worker/src/sweeps/sweeps.ts).
 */
export interface JobPayloads {
  /** Permanent deletion of one video: at its purge date (delayed) or at once. */
  'delete-video': { videoId: string; requestId?: string };
  /** Bring one video's index document in line with its row. */
  'sync-video': { videoId: string; requestId?: string };
  /** Rebuild the whole index from MySQL into a new index and swap the alias. */
  reindex: Record<string, never>;
  /** One attempt of one webhook delivery; `attempt` is the number of attempts MySQL has recorded before it. */
  'deliver-webhook': { deliveryId: string; attempt: number };
  /** Work off one author erasure, a batch at a time, until every video has been moved. */
  'erase-author': { erasureId: string; requestId?: string };
  /** Work off one trash operation (restore all, empty), a batch at a time, until the trash it covers is done. */
  'trash-operation': { operationId: string; requestId?: string };
}

export type JobName = keyof JobPayloads;

/**
 * Each job's home queue. `deliver-webhook` runs on its receiver's queue (`receiverQueueName`), this
 * one only for receivers no longer configured.
 */
export const JOB_QUEUES: { readonly [N in JobName]: QueueName } = {
  'delete-video': QUEUES.deletion,
  'sync-video': QUEUES.index,
  reindex: QUEUES.maintenance,
  'deliver-webhook': QUEUES.webhooks,
  'erase-author': QUEUES.erasure,
  'trash-operation': QUEUES.trash,
};

export const JOB_NAMES = Object.keys(JOB_QUEUES) as JobName[];

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
