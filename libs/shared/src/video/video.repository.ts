import { Injectable } from '@nestjs/common';
import { DataSource, In, type EntityManager, type Repository } from 'typeorm';
import { DeletionAuditEntity } from './deletion-audit.entity';
import type { NextState } from './video-lifecycle';
import { VideoState } from './video-state';
import { VideoEntity } from './video.entity';

/** A video's content as the import writes it; state and timestamps are the database's. */
export interface VideoContent {
  id: string;
  authorId: string;
  title: string;
  description: string;
  tags: string[];
  publishedAt: Date | null;
}

/** Plain data access for videos: no rules here, the services hold those. */
@Injectable()
export class VideoRepository {
  private readonly videos: Repository<VideoEntity>;

  constructor(private readonly dataSource: DataSource) {
    this.videos = dataSource.getRepository(VideoEntity);
  }

  /** Inserts new videos and updates the content of existing ones (bumping their version); state is kept. */
  async upsertContent(rows: VideoContent[]): Promise<void> {
    if (rows.length === 0) return;
    // Timestamps come from this process's clock, like every other write, never the server's time zone.
    const now = new Date();
    const placeholders = rows.map(() => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', ');
    const values = rows.flatMap((row) => [
      row.id,
      row.authorId,
      row.title,
      row.description,
      JSON.stringify(row.tags),
      row.publishedAt,
      now,
      now,
    ]);
    // VALUES(col) is deprecated in MySQL 8 but is the one upsert syntax MySQL and MariaDB share.
    await this.dataSource.query(
      `INSERT INTO videos (id, author_id, title, description, tags, published_at, created_at, updated_at) VALUES ${placeholders}
       ON DUPLICATE KEY UPDATE
         author_id = VALUES(author_id), title = VALUES(title), description = VALUES(description),
         tags = VALUES(tags), published_at = VALUES(published_at),
         version = version + 1, updated_at = VALUES(updated_at)`,
      values,
    );
  }

  findByIds(ids: string[]): Promise<VideoEntity[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.videos.findBy({ id: In(ids) });
  }

  /** The active videos among `ids`, in one query: MySQL decides what a search may show. */
  findActiveByIds(ids: string[]): Promise<VideoEntity[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.videos.findBy({ id: In(ids), state: VideoState.Active });
  }

  count(): Promise<number> {
    return this.videos.count();
  }

  /** Reads a row and locks it until the transaction ends, so two deciders never interleave. */
  lockById(manager: EntityManager, id: string): Promise<VideoEntity | null> {
    return manager.getRepository(VideoEntity).findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
  }

  async applyState(manager: EntityManager, id: string, next: NextState, now: Date): Promise<void> {
    await manager
      .createQueryBuilder()
      .update(VideoEntity)
      .set({
        state: next.state,
        deletedAt: next.deletedAt,
        purgeAt: next.purgeAt,
        deletionReason: next.deletionReason,
        deletionRequestedBy: next.deletionRequestedBy,
        updatedAt: now,
        version: () => 'version + 1',
      })
      .where('id = :id', { id })
      .execute();
  }

  /**
   * Ends a deletion: one audit record (the unique video id makes a repeat a no-op) and the row
   * gone, in one transaction. Returns false when another run got there first.
   */
  async finishDeletion(video: VideoEntity, objectsDeleted: number, now: Date): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      await manager
        .createQueryBuilder()
        .insert()
        .into(DeletionAuditEntity)
        .values({
          videoId: video.id,
          authorId: video.authorId,
          reason: video.deletionReason ?? 'permanent',
          requestedBy: video.deletionRequestedBy,
          deletedAt: video.deletedAt,
          objectsDeleted,
          purgedAt: now,
        })
        .orIgnore()
        .execute();
      const result = await manager.delete(VideoEntity, { id: video.id, state: VideoState.Deleting });
      return (result.affected ?? 0) > 0;
    });
  }

  /** Ids in keyset-paged batches, so a sweep over any number of rows keeps memory flat. */
  private async *idBatches(
    where: string,
    parameters: unknown[],
    batchSize: number,
  ): AsyncGenerator<string[]> {
    let after = '';
    for (;;) {
      const rows: { id: string }[] = await this.dataSource.query(
        `SELECT id FROM videos WHERE ${where} AND id > ? ORDER BY id LIMIT ?`,
        [...parameters, after, batchSize],
      );
      if (rows.length === 0) return;
      yield rows.map((row) => row.id);
      if (rows.length < batchSize) return;
      after = rows[rows.length - 1]!.id;
    }
  }

  /** Every row in id order, a batch at a time (keyset paging: no OFFSET, flat memory). */
  async *rowBatches(batchSize = 1_000, changedSince?: Date): AsyncGenerator<VideoEntity[]> {
    let after = '';
    for (;;) {
      const query = this.videos
        .createQueryBuilder('video')
        .where('video.id > :after', { after })
        .orderBy('video.id', 'ASC')
        .limit(batchSize);
      if (changedSince) query.andWhere('video.updatedAt >= :changedSince', { changedSince });
      const rows = await query.getMany();
      if (rows.length === 0) return;
      yield rows;
      if (rows.length < batchSize) return;
      after = rows[rows.length - 1]!.id;
    }
  }

  /** Videos purged since a moment (their rows are gone; their audit records say when). */
  async purgedSince(since: Date): Promise<string[]> {
    const rows: { video_id: string }[] = await this.dataSource.query(
      'SELECT video_id FROM deletion_audit WHERE purged_at >= ?',
      [since],
    );
    return rows.map((row) => row.video_id);
  }

  /** Soft-deleted videos whose purge date has passed. */
  dueForPurge(now: Date, batchSize = 500): AsyncGenerator<string[]> {
    return this.idBatches('state = ? AND purge_at <= ?', [VideoState.SoftDeleted, now], batchSize);
  }

  /** Videos whose permanent deletion has started but not finished. */
  inDeletion(batchSize = 500): AsyncGenerator<string[]> {
    return this.idBatches('state = ?', [VideoState.Deleting], batchSize);
  }

  /** Which of these ids still have a row, in any state. */
  async existingIds(ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.videos.find({ select: { id: true }, where: { id: In(ids) } });
    return new Set(rows.map((row) => row.id));
  }

  /** The oldest purge date still waiting, for the purge-lag metric. */
  async oldestDuePurge(now: Date): Promise<Date | null> {
    const rows: { oldest: Date | null }[] = await this.dataSource.query(
      'SELECT MIN(purge_at) AS oldest FROM videos WHERE state = ? AND purge_at <= ?',
      [VideoState.SoftDeleted, now],
    );
    return rows[0]?.oldest ?? null;
  }
}
