/**
 * BullMQ's prefix of every key of every queue (BullMQ's own default, named here because code outside
 * the processes reads those keys: the worker's autoscaler counts its backlog, deploy/kubernetes).
 */
export const QUEUE_PREFIX = 'bull';

/**
 * The key prefix of one queue. On a Redis Cluster, BullMQ's scripts touch several keys of a queue
 * at once, which must share a hash slot: the queue's name in braces makes its hash tag, so each
 * queue's keys live together (`bull:{video-deletion}:video-deletion:wait`) and the queues spread
 * over the cluster's primaries. On one server the keys keep BullMQ's plain form, so an upgrade
 * finds the jobs already queued.
 */
export function queuePrefix(queue: string, clustered: boolean): string {
  return clustered ? `${QUEUE_PREFIX}:{${queue}}` : QUEUE_PREFIX;
}

/** Queue names. Deletions get their own queue so a long reindex never delays a purge. */
export const QUEUES = {
  deletion: 'video-deletion',
  index: 'video-index',
  maintenance: 'maintenance',
  /** The webhook sweep; each receiver's deliveries have a queue of their own (`receiverQueueName`). */
  webhooks: 'webhooks',
  /** Restoring or emptying a whole trash: a big one never holds back deletions or other jobs. */
  trash: 'trash-operations',
  /** Author erasures: a few long walks, on slots of their own (ERASURE_CONCURRENCY), so purges keep their schedule. */
  erasure: 'erasures',
} as const;

/**
 * A webhook receiver's own queue for its deliveries, so a receiver that is down or slow fills and
 * holds only its own (`webhooks` keeps the sweep and deliveries to receivers no longer configured).
 */
export type ReceiverQueueName = `webhooks-${string}`;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES] | ReceiverQueueName;

/** The queue of the receiver with this key (64 hex digits); 16 of them name it, as Redis keys and the dashboard show it. */
export function receiverQueueName(endpointKey: string): ReceiverQueueName {
  return `webhooks-${endpointKey.slice(0, 16)}`;
}
