import type { JobSchedulerJson } from 'bullmq';

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
