/** MySQL error numbers the code acts on. */
export const MYSQL_ERRORS = {
  /** ER_DUP_ENTRY: a unique key already holds the value. */
  duplicateKey: 1062,
  /** ER_LOCK_DEADLOCK: the transaction was rolled back as a deadlock's victim; try it again. */
  deadlock: 1213,
} as const;

/** Whether `error` is MySQL's error `errno`, as mysql2 reports it directly or through TypeORM. */
export function isMysqlError(error: unknown, errno: number): boolean {
  const e = error as { errno?: number; driverError?: { errno?: number } } | null;
  return (e?.driverError?.errno ?? e?.errno) === errno;
}
