import { enqueue } from '../queue/enqueue';
import type { JobQueues } from '../queue/job-queues.service';
import type { Effect, NextState } from './video-lifecycle';

/**
 * Asks the queue for the job one effect of a decision calls for: a purge scheduled at `purgeAt`, a
 * deletion now, or a cancelled purge. The row already holds the intent, so the job only makes it
 * prompt; the call gives up after QUEUE_TIMEOUT_MS rather than hold its caller while Redis is away,
 * and rejects: each caller says what a refusal leaves to the sweep.
 * A `bulk` caller's (an erasure's, the trash's) deletions wait behind every other due deletion.
 */
export function queueEffect(
  queues: JobQueues,
  id: string,
  effect: Effect,
  next: Pick<NextState, 'purgeAt'>,
  now: Date,
  requestId?: string,
  bulk = false,
): Promise<void> {
  const action =
    effect === 'cancel_purge'
      ? queues.cancelDeletionJob(id)
      : queues.ensureDeletionJob(
          id,
          effect === 'schedule_purge' ? (next.purgeAt?.getTime() ?? now.getTime()) - now.getTime() : 0,
          requestId,
          { bulk },
        );
  return enqueue(action, effect);
}
