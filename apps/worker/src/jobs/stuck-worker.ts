/**
 * How long a queue's consumer may take no job while it has a free slot and jobs wait, before it
 * counts as stuck. A consumer that works takes a waiting job within its longest block (10 s, then
 * it polls) and the pause after a connection error (15 s): twice that leaves room for both.
 */
export const STUCK_AFTER_MS = 30_000;

/** What the worker's self-check remembers of one queue's consumer in this process. */
export interface ConsumerWatch {
  /** When it last took a job (or was started). */
  takenAt: number;
  /** Since when it has had jobs waiting, nothing running and taken none, if it has. */
  suspectSince?: number;
}

/**
 * One self-check's verdict on a consumer, from what its queue holds now: `waiting` jobs ready to
 * run, `running` of them in this process. A consumer is stuck when, from one check to a later one
 * at least `STUCK_AFTER_MS` apart, jobs waited, it ran none and took none. BullMQ's fetch loop can
 * stay parked after a Redis Cluster failover while the queue's commands work again; only a new
 * consumer takes its jobs then.
 */
export function checkConsumer(
  watch: ConsumerWatch,
  { waiting, running, now }: { waiting: number; running: number; now: number },
): { watch: ConsumerWatch; stuck: boolean } {
  if (waiting === 0 || running > 0) return { watch: { takenAt: watch.takenAt }, stuck: false };
  const since = watch.suspectSince;
  if (since === undefined || watch.takenAt >= since) {
    return { watch: { takenAt: watch.takenAt, suspectSince: now }, stuck: false };
  }
  return { watch, stuck: now - since >= STUCK_AFTER_MS };
}
