import type { DataSource, EntityManager } from 'typeorm';
import { isMysqlError, MYSQL_ERRORS } from './mysql-errors';

/** How often a transaction that MySQL chose as a deadlock's victim is run again. */
export const DEADLOCK_RETRIES = 3;

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
      if (attempt >= DEADLOCK_RETRIES || !isMysqlError(error, MYSQL_ERRORS.deadlock)) throw error;
    }
  }
}
