import { Queue } from 'bullmq';
import { createPool, type Pool, type RowDataPacket } from 'mysql2/promise';
import type { AppConfig } from '@app/shared/config/config.schema';
import { deletionJobId, JOB_QUEUES } from '@app/shared/queue/jobs';
import { QUEUE_PREFIX } from '@app/shared/queue/queues';
import { bullConnection } from '@app/shared/redis/redis';
import { toVideoDocument } from '@app/shared/search/video-document';
import { DAY_MS } from '@app/shared/util/time';
import { VideoState } from '@app/shared/video/video-state';
import { benchToken, type BenchContext } from './lib/kit';
import { timedHttpLoad, warmAlternating } from './lib/load';
import { cpuSeconds, cpuSince, mergeMeasured, type MeasuredRun } from './lib/cpu';
import { alternate } from './lib/order';
import { inTransaction, insertEvent } from './lib/raw-mysql';
import type { Settled } from './lib/warm-up';
import { timedLoop, type TimedRun } from './lib/stats';

export interface SoftDeleteBench {
  /** Videos soft-deleted in each round (the same ones, restored in between). */
  videos: number;
  api: MeasuredRun;
  raw: MeasuredRun;
  /** The unmeasured alternating rounds before the measured ones. */
  warmUp: Settled;
}

const RETENTION_DAYS = 30;

/**
 * The soft delete a user would write without the product, for one video: in one transaction, the
 * row read under a lock, its state, dates and version written, the `video.soft_deleted` event
 * inserted into the outbox; after the commit, the 30-day purge job added to BullMQ's deletion
 * queue and the row's new document written to the index at the row's version. The same
 * statements, job and bulk request as the product's (video-lifecycle.service.ts), through plain
 * mysql2, BullMQ and Elasticsearch clients of the bench's own; the document is built by the
 * index's own mapping function, since the index expects exactly that document.
 */
async function rawSoftDelete(
  { pool, queue, context, index }: { pool: Pool; queue: Queue; context: BenchContext; index: string },
  id: string,
): Promise<void> {
  const now = new Date();
  const purgeAt = new Date(now.getTime() + RETENTION_DAYS * DAY_MS);
  const video = await inTransaction(pool, async (connection) => {
    const [rows] = await connection.query<RowDataPacket[]>(
      `SELECT id, author_id AS authorId, state, deleted_at AS deletedAt, purge_at AS purgeAt,
         deletion_reason AS deletionReason, deletion_requested_by AS deletionRequestedBy, version,
         title, description, tags, speakers, event, published_at AS publishedAt,
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
  });
  const response = await context.engine.bulk({
    operations: [
      { index: { _index: index, _id: id, version: (video.version as number) + 1, version_type: 'external' } },
      document,
    ],
    refresh: false,
    require_alias: true,
  });
  if (response.errors) throw new Error(`indexing ${id} failed`);
}

/**
 * Soft deletes through the API (`DELETE /api/videos/{id}?retentionDays=30`, each request a different
 * video) against the raw script above, at the same concurrency, on the same videos: unmeasured
 * rounds of both sides until the API's V8 has optimised its path (a fresh API took about one and
 * a half times the CPU per request in its first 500 requests) and Elasticsearch's JIT compiler
 * has settled (`warmUntilSettled`), then `rounds` alternating ones (a b b a…). Between rounds the
 * videos are made active again (row, document) and the delayed purge jobs removed, so every round
 * deletes active videos that have no job yet.
 */
export async function benchSoftDelete(
  config: AppConfig,
  context: BenchContext,
  apiUrl: string,
  {
    concurrency,
    videos,
    rounds,
    warmUpSeconds,
  }: {
    concurrency: number;
    videos: number;
    rounds: number;
    warmUpSeconds: { min: number; max: number };
  },
): Promise<SoftDeleteBench> {
  const rows: { id: string }[] = await context.dataSource.query(
    'SELECT id FROM videos WHERE state = ? ORDER BY id LIMIT ?',
    [VideoState.Active, videos],
  );
  const ids = rows.map((row) => row.id);
  const token = benchToken();
  // mysql2's default pool, as a script would open it: ten connections, like the product's.
  const pool = createPool({ uri: config.DATABASE_URL, timezone: 'Z', connectionLimit: 10 });
  const queue = new Queue(JOB_QUEUES['delete-video'], {
    connection: bullConnection(config),
    prefix: QUEUE_PREFIX,
  });
  const raw = { pool, queue, context, index: config.ELASTICSEARCH_INDEX };

  const restore = async () => {
    await context.dataSource.query(
      `UPDATE videos SET state = 'active', deleted_at = NULL, purge_at = NULL, deletion_reason = NULL,
         deletion_requested_by = NULL, version = version + 1 WHERE id IN (?)`,
      [ids],
    );
    await context.indexWriter.indexVideos(await context.videos.findByIds(ids));
    // The 30-day purges either side scheduled: with them, the next round would move jobs, not add them.
    await queue.drain(true);
  };
  /** One round of a side, from active videos with no job to soft-deleted ones; CPU per part. */
  const round = (run: () => Promise<TimedRun>) => async () => {
    const cpu0 = cpuSeconds();
    const timed = await run();
    const cpu = cpuSince(cpu0);
    await restore();
    return { ...timed, cpu };
  };
  const sides = {
    api: round(() =>
      timedHttpLoad({
        url: apiUrl,
        method: 'DELETE',
        headers: { authorization: `Bearer ${token}` },
        request: (i) => ({ path: `/api/videos/${ids[i]!}?retentionDays=${RETENTION_DAYS}` }),
        concurrency,
        amount: ids.length,
      }),
    ),
    raw: round(() => timedLoop((i) => rawSoftDelete(raw, ids[i]!), { concurrency, total: ids.length })),
  };
  try {
    await restore();
    const warmUp = await warmAlternating(sides, {
      minRounds: 3,
      minSeconds: warmUpSeconds.min,
      maxSeconds: warmUpSeconds.max,
      settledJitShare: 0.01,
    });
    const measured = await alternate(sides, rounds);
    return {
      videos: ids.length,
      api: mergeMeasured(measured.api),
      raw: mergeMeasured(measured.raw),
      warmUp,
    };
  } finally {
    await queue.close();
    await pool.end();
  }
}
