import type { DataSource, EntityManager } from 'typeorm';

/** MySQL's "Deadlock found when trying to get lock; try restarting transaction" (ER_LOCK_DEADLOCK). */
const DEADLOCK = 1213;

/** How often a transaction that MySQL chose as a deadlock's victim is run again. */
export const DEADLOCK_RETRIES = 3;

function isDeadlock(error: unknown): boolean {
  const { errno, driverError } = error as { errno?: number; driverError?: { errno?: number } };
  return (driverError?.errno ?? errno) === DEADLOCK;
}

/**
 * Runs `work` in one transaction, and again (up to DEADLOCK_RETRIES times) when MySQL rolled it
 * back as a deadlock's victim, as MySQL asks. Only for work that reads what it changes under its
 * own locks, so that a second run decides afresh: nothing of the first run survives its rollback.
 * Two batch writers on the same author's rows (a trash request and an erasure) can deadlock.
 */
export async function transactionRetryingDeadlocks<T>(
  dataSource: Pick<DataSource, 'transaction'>,
  work: (manager: EntityManager) => Promise<T>,
): Promise<T> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await dataSource.transaction(work);
    } catch (error) {
      if (attempt >= DEADLOCK_RETRIES || !isDeadlock(error)) throw error;
    }
  }
}
