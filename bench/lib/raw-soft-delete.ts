/**
 * The soft delete a user would write without the product (bench/delete.bench.ts's baseline), in
 * a module of its own: the bench runs it in its own process, and bench/floor-delete.ts behind a
 * bare HTTP server.
 */
import type { Client } from '@elastic/elasticsearch';
import { Queue } from 'bullmq';
import { createPool, type Pool, type RowDataPacket } from 'mysql2/promise';
import type { AppConfig } from '@app/shared/config/config.schema';
import { deletionJobId, JOBS } from '@app/shared/queue/jobs';
import { QUEUE_PREFIX } from '@app/shared/queue/queues';
import { bullConnection } from '@app/shared/redis/redis';
import { toVideoDocument } from '@app/shared/search/video-document';
import { DAY_MS } from '@app/shared/util/time';
import { VideoState } from '@app/shared/video/video-state';
import { inTransaction, insertEvent } from './raw-mysql';

export const RETENTION_DAYS = 30;

/**
 * The soft delete a user would write without the product, for one video: in one transaction, the
 * row read under a lock, its state, dates and version written, the `video.soft_deleted` event
 * inserted into the outbox; after the commit, the 30-day purge job added to BullMQ's deletion
 * queue and the row's new document written to the index at the row's version. The same
 * statements, job and bulk request as the product's (video-lifecycle.service.ts), through plain
 * mysql2, BullMQ and Elasticsearch clients of the bench's own; the document is built by the
 * index's own mapping function, since the index expects exactly that document.
 */
export async function rawSoftDelete(
  { pool, queue, engine, index }: RawSoftDeleter,
  id: string,
): Promise<void> {
  const now = new Date();
  const purgeAt = new Date(now.getTime() + RETENTION_DAYS * DAY_MS);
  const video = await inTransaction(pool, async (connection) => {
    const [rows] = await connection.query<RowDataPacket[]>(
      `SELECT id, author_id AS authorId, state, deleted_at AS deletedAt, purge_at AS purgeAt,
         deletion_reason AS deletionReason, deletion_requested_by AS deletionRequestedBy, version,
         title, description, tags, speakers, event, published_at AS publishedAt, language,
         created_at AS createdAt, updated_at AS updatedAt
       FROM videos WHERE id = ? FOR UPDATE`,
      [id],
    );
    const locked = rows[0]!;
    if (locked.state !== VideoState.Active) throw new Error(`${id} is ${String(locked.state)}`);
    await connection.query(
      `UPDATE videos SET state = ?, deleted_at = ?, purge_at = ?, deletion_reason = ?, deletion_requested_by = ?,
         updated_at = ?, version = version + 1
       WHERE id = ?`,
      [VideoState.SoftDeleted, now, purgeAt, 'retention', 'bench', now, id],
    );
    await insertEvent(connection, 'video.soft_deleted', now, {
      videoId: id,
      authorId: locked.authorId as string,
      requestedBy: 'bench',
      deletedAt: now.toISOString(),
      purgeAt: purgeAt.toISOString(),
    });
    return locked;
  });
  await queue.add(
    'delete-video',
    { videoId: id },
    {
      jobId: deletionJobId(id),
      delay: purgeAt.getTime() - now.getTime(),
      attempts: 8,
      backoff: { type: 'jittered', delay: 1_000 },
      removeOnComplete: { age: 3_600, count: 1_000 },
      removeOnFail: false,
    },
  );
  const list = (value: string | string[]) =>
    typeof value === 'string' ? (JSON.parse(value) as string[]) : value;
  const document = toVideoDocument({
    id,
    authorId: video.authorId as string,
    state: VideoState.SoftDeleted,
    title: video.title as string,
    description: video.description as string,
    tags: list(video.tags as string | string[]),
    speakers: list(video.speakers as string | string[]),
    event: video.event as string | null,
    publishedAt: video.publishedAt as Date | null,
    language: video.language as string,
  });
  const response = await engine.bulk({
    operations: [
      { index: { _index: index, _id: id, version: (video.version as number) + 1, version_type: 'external' } },
      document,
    ],
    refresh: false,
    require_alias: true,
  });
  if (response.errors) throw new Error(`indexing ${id} failed`);
}

/** What the raw soft delete writes with: plain mysql2, BullMQ and Elasticsearch clients. */
export interface RawSoftDeleter {
  pool: Pool;
  queue: Queue;
  engine: Client;
  index: string;
}

/**
 * The raw soft delete's clients, opened on the bench's configuration: mysql2's default pool, as a
 * script would open it (ten connections, like the product's), and the deletion queue.
 */
export function openRawSoftDelete(
  config: AppConfig,
  engine: Client,
): RawSoftDeleter & { close(): Promise<void> } {
  const pool = createPool({ uri: config.DATABASE_URL, timezone: 'Z', connectionLimit: 10 });
  const queue = new Queue(JOBS['delete-video'].queue, {
    connection: bullConnection(config),
    prefix: QUEUE_PREFIX,
  });
  return {
    pool,
    queue,
    engine,
    index: config.ELASTICSEARCH_INDEX,
    async close() {
      await queue.close();
      await pool.end();
    },
  };
}
