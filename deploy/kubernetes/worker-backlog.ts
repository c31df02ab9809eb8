/**
 * The worker's backlog as its autoscaler reads it from Redis: jobs ready to run that no worker has
 * taken yet, on the queues that fill by thousands. The key names come from the code's queue names
 * and prefix through BullMQ's own naming, so they cannot drift from what the processes write.
 */
import { QueueKeys } from 'bullmq';
import { QUEUES, queuePrefix } from '../../libs/shared/src/queue/queues.ts';

/**
 * BullMQ keeps a queue's ready jobs under two keys: `wait`, a list of the jobs without a priority,
 * and `prioritized`, a sorted set of those with one (the deletions of an erasure or an emptied
 * trash, BULK_DELETION_PRIORITY). Left out, as no further worker could take them now: `delayed`
 * (purges not yet due, retries in backoff), `active`, and `paused` (a queue an operator paused).
 */
const READY = ['wait', 'prioritized'] as const;

/**
 * Deletions (purges, permanent deletes, and those of erasures and trashes) and index repairs. Left
 * out: `maintenance` (sweeps, one run at a time whatever the number of workers); `erasures` and
 * `trash-operations` (a few long walks, whose work lands in the deletion queue and counts there);
 * the webhook queues (a receiver's backlog waits on that receiver, which more workers would only
 * send more at once; their names also depend on WEBHOOK_URLS).
 */
const BULK_QUEUES = { deletion: QUEUES.deletion, index: QUEUES.index } as const;

export interface BacklogKey {
  /** The KEDA trigger's name, which the formula adds up (an identifier: no dashes). */
  trigger: string;
  /** The Redis key it reads: a list's length or a sorted set's size, as KEDA's Redis scaler does. */
  key: string;
}

/** The keys the triggers read, on one Redis server or on a Redis Cluster (each queue's keys in its own slot). */
export function backlogKeys(clustered: boolean): BacklogKey[] {
  return Object.entries(BULK_QUEUES).flatMap(([queue, name]) =>
    READY.map((ready) => ({
      trigger: `${queue}_${ready}`,
      key: new QueueKeys(queuePrefix(name, clustered)).toKey(name, ready),
    })),
  );
}

/** The backlog is the sum of what the triggers read (KEDA's `scalingModifiers.formula`). */
export const BACKLOG_FORMULA = backlogKeys(false)
  .map(({ trigger }) => trigger)
  .join(' + ');
