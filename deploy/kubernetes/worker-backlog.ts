/**
 * The worker's backlog as its autoscaler reads it: the work a worker would start now on the queues
 * that fill by thousands. KEDA's Redis scaler reads a key's length, and the keys cannot say it:
 * BullMQ keeps a paused queue's jobs in `wait` (pausing sets a field of the queue's meta hash), and
 * delayed jobs (purges not yet due, retries in backoff) share one sorted set with those due. So
 * every process exports the count (`queue_startable_jobs`, libs/shared/src/queue/ready-work.ts:
 * waiting, prioritized and due jobs, none while the queue is paused) and KEDA reads it from
 * Prometheus.
 */
import { QUEUES } from '../../libs/shared/src/queue/queues.ts';
import { NAMES } from './names.ts';

/** The metric the workers export, read every METRICS_REFRESH_INTERVAL_MS (stored-metrics.ts). */
export const BACKLOG_METRIC = 'queue_startable_jobs';

/**
 * Deletions (purges, permanent deletes, and those of erasures and trashes) and index repairs. Left
 * out: `maintenance` (sweeps, one run at a time whatever the number of workers); `erasures` and
 * `trash-operations` (a few long walks, whose work lands in the deletion queue and counts there);
 * the webhook queues (a receiver's backlog waits on that receiver, which more workers would only
 * send more at once; their names also depend on WEBHOOK_URLS).
 */
export const BULK_QUEUES: readonly string[] = [QUEUES.deletion, QUEUES.index];

/**
 * The backlog of the workers of one namespace: each queue's count as the workers export it (every
 * worker reads the same value, so their `max`), added up over the bulk queues.
 */
export function backlogQuery(namespace: string): string {
  const selector = `${BACKLOG_METRIC}{namespace="${namespace}",job="${NAMES.worker}",queue=~"${BULK_QUEUES.join('|')}"}`;
  return `sum(max by (queue) (${selector}))`;
}
