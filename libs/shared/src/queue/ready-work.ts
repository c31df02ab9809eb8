import type { Queue } from 'bullmq';

/**
 * Jobs of a queue ready to run now: those waiting, and those delayed whose time has come (a
 * consumer that fetches moves them out of `delayed`; a parked one leaves them there). A retry's
 * time is its backoff's end, which only BullMQ's count by time knows (a job's own `timestamp` and
 * `delay` are its creation and its last backoff).
 */
export async function readyJobs(queue: Queue): Promise<number> {
  const counts = await queue.getJobCounts('wait', 'prioritized');
  const due = await queue.getDelayedCount(Date.now());
  return (counts.wait ?? 0) + (counts.prioritized ?? 0) + due;
}

/**
 * The work a worker would start now: the ready jobs, or none while the queue is paused. BullMQ
 * keeps a paused queue's jobs in `wait` (pausing only sets `paused` in the queue's meta hash), so a
 * count of the keys alone would ask for workers that could take nothing.
 */
export async function startableJobs(queue: Queue): Promise<number> {
  return (await queue.isPaused()) ? 0 : readyJobs(queue);
}
