import { randomUUID } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import { transactionRetryingDeadlocks } from '../database/transaction';
import type { BatchChange, VideoBatchCommands } from './video-batch-commands.service';
import type { Actor } from './video-lifecycle';

/**
 * What the durable operations on many videos share (an author's erasure, docs/contract.md §10.2,
 * and a trash's restore or empty, §10.1): a row in MySQL is the request, one unfinished per author
 * by a unique key; the worker works it off a batch per transaction, through `decide()`, as the
 * caller who asked; a job makes it prompt and a sweep finds it again when Redis lost the job.
 */

/** Who asked, as `decide()` checks callers: only the author or an admin may ask (checked when written). */
export function requesterOf(operation: { requestedBy: string; authorId: string }): Actor {
  return { sub: operation.requestedBy, roles: operation.requestedBy === operation.authorId ? [] : ['admin'] };
}

/**
 * Writes a new operation unless its author has an unfinished one (the unique key refuses it, in
 * MySQL, whichever request comes first), and returns the one written or the one that refused it.
 * Two rounds at most: a refusal names an unfinished operation, which may complete before it is read.
 */
export async function writeUnlessUnfinished<T>(
  what: string,
  {
    write,
    findById,
    findUnfinished,
  }: {
    write: (id: string) => Promise<boolean>;
    findById: (id: string) => Promise<T | null>;
    findUnfinished: () => Promise<T | null>;
  },
): Promise<{ operation: T; written: boolean }> {
  for (let round = 0; round < 2; round += 1) {
    const id = randomUUID();
    const written = await write(id);
    const operation = written ? await findById(id) : await findUnfinished();
    if (operation) return { operation, written };
  }
  throw new Error(`${what}: neither written nor found unfinished`);
}

/** One batch of an operation, decided and written in its transaction: how the walk stands, and what changed. */
export interface BatchStep<S extends string> {
  step: S;
  changes: BatchChange[];
}

/**
 * Runs an operation's batches until one ends the walk: each in a transaction of its own (run
 * again when MySQL picks it as a deadlock's victim), its follow-ups (jobs, index) after the commit.
 * A process killed at any point leaves a whole batch or none of it. Returns the last step.
 */
export async function runBatches<S extends string, M extends S>(
  dataSource: Pick<DataSource, 'transaction'>,
  commands: Pick<VideoBatchCommands, 'followUp'>,
  more: M,
  step: (manager: EntityManager, now: Date) => Promise<BatchStep<S>>,
  requestId?: string,
): Promise<Exclude<S, M>> {
  for (;;) {
    const now = new Date();
    const batch = await transactionRetryingDeadlocks(dataSource, (manager) => step(manager, now));
    await commands.followUp(batch.changes, now, requestId);
    if (batch.step !== more) return batch.step as Exclude<S, M>;
  }
}
