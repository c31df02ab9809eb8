import type { Job, Queue } from 'bullmq';

/**
 * When a job became ready to run, from what BullMQ keeps of it: BullMQ records when a job was
 * added (`timestamp`) and the delay it was added with (`opts.delay`), and when its last attempt
 * started (`processedOn`, which a retry after a failed attempt is later than), but not when it
 * entered the line. So this is exact for a job added to run now, a delayed job that came due (the
 * normal case of every queue) and a job retried after its backoff; a delayed job promoted early
 * (a scheduled purge made permanent) reads as ready from its original date, so not yet, and one
 * whose delay was changed, or a failed one retried by hand, from its earlier dates.
 */
export function readySince(job: Pick<Job, 'timestamp' | 'opts' | 'processedOn'>): number {
  return Math.max(job.timestamp + (job.opts.delay ?? 0), job.processedOn ?? 0);
}

/**
 * When the job next in line became ready (`readySince`), or null when none waits: the oldest of
 * `wait` (a FIFO list) and the first of `prioritized` (the oldest of its priority; the deletion
 * queue's bulk jobs share one, BULK_DELETION_PRIORITY). Two jobs read, whatever the queue's length.
 */
export async function nextInLineReadySince(queue: Pick<Queue, 'getJobs'>): Promise<number | null> {
  // Ascending: the end of the list that workers take from, the lowest score of the sorted set.
  const since = (await queue.getJobs(['wait', 'prioritized'], 0, 0, true)).map(readySince);
  return since.length === 0 ? null : Math.min(...since);
}
