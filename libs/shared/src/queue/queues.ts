/** Queue names. Deletions get their own queue so a long reindex never delays a purge. */
export const QUEUES = {
  deletion: 'video-deletion',
  index: 'video-index',
  maintenance: 'maintenance',
  /** Webhook deliveries: a receiver that is down fills this one only. */
  webhooks: 'webhooks',
  /** Restoring or emptying a whole trash: a big one never holds back deletions or other jobs. */
  trash: 'trash-operations',
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];
