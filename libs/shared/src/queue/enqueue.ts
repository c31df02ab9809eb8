import type { Logger } from '@nestjs/common';
import { withTimeout } from '../util/with-timeout';

/**
 * The longest a caller waits for Redis to take a job. Nothing depends on a job alone: the sweeps
 * and the reconciler find the work by the rows, so the caller goes on without it.
 */
export const QUEUE_TIMEOUT_MS = 2_000;

/**
 * Waits for Redis to take a job (`adding`, e.g. a `JobQueues` call) for at most QUEUE_TIMEOUT_MS.
 * Without `orElse` a failure or a timeout rejects (`queue <what> timed out after …`), for a caller
 * that decides itself what a refusal means. With it the failure is logged as a warning,
 * `<orElse.warn>: <error>`, and the call resolves: what was not queued, a sweep or the reconciler
 * finds in MySQL. (The job itself may still be taken after the timeout: nothing can cancel it.)
 */
export async function enqueue(
  adding: Promise<unknown>,
  what: string,
  orElse?: { logger: Pick<Logger, 'warn'>; warn: string },
): Promise<void> {
  const queued = withTimeout(adding, QUEUE_TIMEOUT_MS, `queue ${what}`);
  if (!orElse) {
    await queued;
    return;
  }
  await queued.catch((error: unknown) => orElse.logger.warn(`${orElse.warn}: ${String(error)}`));
}
