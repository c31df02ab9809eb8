import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { NextState } from './video-lifecycle';
import { VideoChangeFeed } from './video-change-feed';
import { VideoState } from './video-state';
import { LIFECYCLE_COLUMNS, type VideoLifecycleRow } from './video.repository';

/** Some of a row's lifecycle columns, to be written together. */
export type StateColumns = Partial<NextState>;

const COLUMN_NAMES: Record<keyof NextState, string> = {
  state: 'state',
  deletedAt: 'deleted_at',
  purgeAt: 'purge_at',
  deletionReason: 'deletion_reason',
  deletionRequestedBy: 'deletion_requested_by',
};

/** One trash item as the listing shows it. */
export interface TrashItem {
  id: string;
  title: string;
  deletedAt: Date;
  purgeAt: Date;
}

/**
 * The videos an erasure of `authorId` asked for at `createdBy` acts on: the author's videos that
 * existed then and are not already being deleted. One condition for the count, the insert and the walk.
 */
export function erasableSql(authorId: string, createdBy: Date): { where: string; parameters: unknown[] } {
  return {
    where: 'author_id = ? AND created_at <= ? AND state IN (?)',
    parameters: [authorId, createdBy, [VideoState.Active, VideoState.SoftDeleted]],
  };
}

/**
 * An author's trash as a trash operation asked at `deletedBy` covers it: the videos soft-deleted
 * up to then. One condition for the operation's count, its insert and its batches.
 */
export function trashSql(authorId: string, deletedBy: Date): { where: string; parameters: unknown[] } {
  return {
    where: 'author_id = ? AND state = ? AND deleted_at <= ?',
    parameters: [authorId, VideoState.SoftDeleted, deletedBy],
  };
}

/**
 * Plain data access for work on many videos at once: an author's trash and the batches of the
 * trash operations and erasures. Each batch is read under lock in the caller's transaction.
 */
@Injectable()
export class VideoBatchRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly changes: VideoChangeFeed,
  ) {}

  /** A page of an author's trash, most recently deleted first (ties by id, so pages are stable). */
  async trashPage(authorId: string, offset: number, limit: number): Promise<TrashItem[]> {
    return this.dataSource.query(
      `SELECT id, title, deleted_at AS deletedAt, purge_at AS purgeAt FROM videos
       WHERE author_id = ? AND state = ? ORDER BY deleted_at DESC, id DESC LIMIT ? OFFSET ?`,
      [authorId, VideoState.SoftDeleted, limit, offset],
    );
  }

  async trashCount(authorId: string): Promise<number> {
    const [row] = await this.dataSource.query<{ total: string | number }[]>(
      'SELECT COUNT(*) AS total FROM videos WHERE author_id = ? AND state = ?',
      [authorId, VideoState.SoftDeleted],
    );
    return Number(row?.total ?? 0);
  }

  /**
   * The next batch of an author's trash deleted up to `deletedBy`, oldest first, locked. The
   * operations take every row out of the trash, so each batch starts from the first row left:
   * a run cut off anywhere resumes there, with no position to keep.
   */
  lockTrashBatch(
    manager: EntityManager,
    authorId: string,
    deletedBy: Date,
    limit: number,
  ): Promise<VideoLifecycleRow[]> {
    const trash = trashSql(authorId, deletedBy);
    return manager.query(
      `SELECT ${LIFECYCLE_COLUMNS} FROM videos WHERE ${trash.where} ORDER BY deleted_at, id LIMIT ? FOR UPDATE`,
      [...trash.parameters, limit],
    );
  }

  /** How many of an author's videos, created up to `createdBy`, an erasure would act on. */
  async countErasable(authorId: string, createdBy: Date): Promise<number> {
    const erasable = erasableSql(authorId, createdBy);
    const [row] = await this.dataSource.query<{ total: string | number }[]>(
      `SELECT COUNT(*) AS total FROM videos WHERE ${erasable.where}`,
      erasable.parameters,
    );
    return Number(row?.total ?? 0);
  }

  /** The next batch (in id order, after `afterId`) of an author's erasable videos created up to `createdBy`, locked. */
  lockErasableBatch(
    manager: EntityManager,
    { authorId, createdBy, afterId }: { authorId: string; createdBy: Date; afterId: string },
    limit: number,
  ): Promise<VideoLifecycleRow[]> {
    const erasable = erasableSql(authorId, createdBy);
    return manager.query(
      `SELECT ${LIFECYCLE_COLUMNS} FROM videos WHERE ${erasable.where} AND id > ? ORDER BY id LIMIT ? FOR UPDATE`,
      [...erasable.parameters, afterId, limit],
    );
  }

  /** How many of an author's videos created up to `createdBy` are still being deleted. */
  async countDeleting(manager: EntityManager, authorId: string, createdBy: Date): Promise<number> {
    const [row] = await manager.query<{ total: string | number }[]>(
      'SELECT COUNT(*) AS total FROM videos WHERE author_id = ? AND created_at <= ? AND state = ?',
      [authorId, createdBy, VideoState.Deleting],
    );
    return Number(row?.total ?? 0);
  }

  /**
   * Writes each row's changed columns and bumps its version: one UPDATE per distinct set of
   * values, so a batch whose rows change alike (a restore, a deletion) is one statement.
   */
  async writeStates(
    manager: EntityManager,
    changes: { id: string; columns: StateColumns }[],
    now: Date,
  ): Promise<void> {
    const groups = new Map<string, { columns: StateColumns; ids: string[] }>();
    for (const { id, columns } of changes) {
      const key = JSON.stringify(Object.entries(columns).sort(([a], [b]) => a.localeCompare(b)));
      const group = groups.get(key) ?? { columns, ids: [] };
      group.ids.push(id);
      groups.set(key, group);
    }
    for (const { columns, ids } of groups.values()) {
      const entries = Object.entries(columns) as [keyof NextState, unknown][];
      await manager.query(
        `UPDATE videos SET ${entries.map(([name]) => `${COLUMN_NAMES[name]} = ?`).join(', ')},
           updated_at = ?, version = version + 1
         WHERE id IN (?)`,
        [...entries.map(([, value]) => value), now, ids],
      );
    }
    await this.changes.changed(
      manager,
      changes.map(({ id }) => id),
    );
  }
}
