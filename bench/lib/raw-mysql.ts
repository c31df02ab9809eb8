/**
 * The baselines' MySQL, as a script writes it with plain mysql2: a transaction on a connection of
 * its pool, and an outbox event inserted in it.
 */
import { randomUUID } from 'node:crypto';
import type { Pool, PoolConnection } from 'mysql2/promise';

/** Runs `work` in one transaction on a connection of the pool: committed, or rolled back and thrown. */
export async function inTransaction<T>(
  pool: Pool,
  work: (connection: PoolConnection) => Promise<T>,
): Promise<T> {
  const connection = await pool.getConnection();
  try {
    await connection.beginTransaction();
    const result = await work(connection);
    await connection.commit();
    return result;
  } catch (error) {
    await connection.rollback();
    throw error;
  } finally {
    connection.release();
  }
}

/**
 * An outbox event as the contract shapes it (docs/contract.md §10.4), about the video `data`
 * names, inserted in the caller's transaction.
 */
export async function insertEvent(
  connection: PoolConnection,
  type: string,
  at: Date,
  data: { videoId: string; authorId: string } & Record<string, unknown>,
): Promise<void> {
  const body = JSON.stringify({ type, timestamp: at.toISOString(), data });
  await connection.query(
    'INSERT INTO outbox_events (id, type, subject, author_id, body, occurred_at) VALUES ?',
    [[[randomUUID(), type, data.videoId, data.authorId, body, at]]],
  );
}
