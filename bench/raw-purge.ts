import type { Client } from '@elastic/elasticsearch';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { Pool, PoolConnection, ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import { ledgerKey } from '@app/shared/video/deletion-ledger.service';
import { rawDeleteMedia } from './lib/media';
import { inTransaction, insertEvent } from './lib/raw-mysql';

/** What the purge script talks to: clients of the bench's own, none of the product's. */
export interface RawPurgeClients {
  pool: Pool;
  s3: S3Client;
  engine: Client;
  bucket: string;
  index: string;
}

interface Row {
  id: string;
  authorId: string;
  state: string;
  deletedAt: Date | null;
  purgeAt: Date | null;
  deletionRequestedBy: string | null;
}

/** One of the purge's events about `row` (`insertEvent`), in the caller's transaction. */
function recordEvent(
  connection: PoolConnection,
  type: string,
  row: Row,
  at: Date,
  data: Record<string, unknown>,
): Promise<void> {
  return insertEvent(connection, type, at, {
    videoId: row.id,
    authorId: row.authorId,
    requestedBy: row.deletionRequestedBy,
    ...data,
  });
}

/**
 * The purge of one due video as a script would write it with plain clients, making the writes the
 * contract asks of a purge (docs/contract.md §6, §10.4, §10.5): claim the row (locked, moved to
 * `deleting`, with its `video.deletion_started` event), delete its media (one listing, one
 * DeleteObjects), its index document and write its ledger entry, then in one transaction remove
 * the row, write its audit record and its `video.purged` event.
 */
export async function rawPurge(clients: RawPurgeClients, id: string): Promise<void> {
  const { pool, s3, engine, bucket, index } = clients;
  const claimedAt = new Date();
  const row = await inTransaction(pool, async (connection) => {
    const [rows] = await connection.query<RowDataPacket[]>(
      `SELECT id, author_id AS authorId, state, deleted_at AS deletedAt, purge_at AS purgeAt,
         deletion_requested_by AS deletionRequestedBy
       FROM videos WHERE id = ? FOR UPDATE`,
      [id],
    );
    const due = rows[0] as Row | undefined;
    if (!due || due.state !== 'soft_deleted' || !due.purgeAt || due.purgeAt > claimedAt) {
      throw new Error(`${id} is not due for purge`);
    }
    await connection.query(
      `UPDATE videos SET state = 'deleting', deletion_reason = 'retention', updated_at = ?, version = version + 1
       WHERE id = ?`,
      [claimedAt, id],
    );
    await recordEvent(connection, 'video.deletion_started', due, claimedAt, {
      reason: 'retention',
      startedAt: claimedAt.toISOString(),
    });
    return due;
  });

  const objectsDeleted = await rawDeleteMedia(s3, bucket, id);
  await engine.delete({ index, id }, { ignore: [404] });
  const purgedAt = new Date();
  await s3.send(
    new PutObjectCommand({
      Bucket: bucket,
      Key: ledgerKey({ purgedAt, video: { id } }),
      Body: JSON.stringify({ video: row, objectsDeleted, purgedAt }),
      ContentType: 'application/json',
    }),
  );

  await inTransaction(pool, async (connection) => {
    const [deleted] = await connection.query<ResultSetHeader>(
      "DELETE FROM videos WHERE id = ? AND state = 'deleting'",
      [id],
    );
    if (deleted.affectedRows === 0) return;
    await connection.query(
      `INSERT IGNORE INTO deletion_audit
         (video_id, author_id, reason, requested_by, deleted_at, purge_at, objects_deleted, purged_at)
       VALUES ?`,
      [
        [
          [
            id,
            row.authorId,
            'retention',
            row.deletionRequestedBy,
            row.deletedAt,
            row.purgeAt,
            objectsDeleted,
            purgedAt,
          ],
        ],
      ],
    );
    await recordEvent(connection, 'video.purged', row, purgedAt, {
      reason: 'retention',
      deletedAt: row.deletedAt?.toISOString() ?? null,
      purgedAt: purgedAt.toISOString(),
      objectsRemoved: objectsDeleted,
    });
  });
}
