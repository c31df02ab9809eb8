import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { BulkOperationRepository } from '../video/bulk-operation.repository';
import { trashSql } from '../video/video-batch.repository';
import {
  TrashOperationEntity,
  UNFINISHED_TRASH_STATES,
  type TrashOperationKind,
} from './trash-operation.entity';

/** What a new trash operation says; its total is counted as it is written. */
export interface NewTrashOperation {
  id: string;
  authorId: string;
  kind: TrashOperationKind;
  requestedBy: string;
  startedAt: Date;
}

/** Plain data access for trash operations: no rules here, the trash operation services hold those. */
@Injectable()
export class TrashOperationRepository extends BulkOperationRepository<
  TrashOperationEntity,
  (typeof UNFINISHED_TRASH_STATES)[number]
> {
  constructor(dataSource: DataSource) {
    super(dataSource, TrashOperationEntity, UNFINISHED_TRASH_STATES);
  }

  /**
   * Writes a running operation with its total (the author's trash up to `startedAt`, counted in the
   * same statement), unless one is running for the author: the unique `active_author` refuses a
   * second, whichever request comes first. Returns whether it was written.
   */
  async insertUnlessActive(operation: NewTrashOperation): Promise<boolean> {
    const trash = trashSql(operation.authorId, operation.startedAt);
    return this.insertUnlessActiveRow(
      `INSERT INTO trash_operations
           (id, author_id, kind, requested_by, state, total, done, active_author, started_at, updated_at)
         SELECT ?, ?, ?, ?, 'running', COUNT(*), 0, ?, ?, ? FROM videos WHERE ${trash.where}`,
      [
        operation.id,
        operation.authorId,
        operation.kind,
        operation.requestedBy,
        operation.authorId,
        operation.startedAt,
        operation.startedAt,
        ...trash.parameters,
      ],
    );
  }

  /** Counts `videos` more as done, never past the total. */
  async advance(manager: EntityManager, id: string, videos: number, now: Date): Promise<void> {
    await manager.query(
      'UPDATE trash_operations SET done = LEAST(total, done + ?), updated_at = ? WHERE id = ?',
      [videos, now, id],
    );
  }

  /**
   * Ends the operation: every video is done (one that left the trash another way meanwhile, by its
   * own restore or deletion, is out of it too), and the author is free for a new one. Once only.
   */
  async complete(manager: EntityManager, id: string, now: Date): Promise<boolean> {
    const result: { affectedRows: number } = await manager.query(
      `UPDATE trash_operations SET state = 'completed', done = total, completed_at = ?, active_author = NULL,
         updated_at = ?
       WHERE id = ? AND state <> 'completed'`,
      [now, now, id],
    );
    return result.affectedRows > 0;
  }

  /**
   * Deletes the author's completed operations in the caller's transaction (an erasure's
   * completion); a running one is the author's own request, and goes with the retention prune.
   */
  async deleteCompletedOfAuthor(manager: EntityManager, authorId: string): Promise<number> {
    const result: { affectedRows: number } = await manager.query(
      `DELETE FROM trash_operations WHERE author_id = ? AND state = 'completed'`,
      [authorId],
    );
    return result.affectedRows;
  }

  /** Ids of every running operation, for the sweep (few: at most one per author). */
  async unfinished(): Promise<string[]> {
    const rows: { id: string }[] = await this.dataSource.query(
      'SELECT id FROM trash_operations WHERE state IN (?)',
      [this.unfinishedStates],
    );
    return rows.map((row) => row.id);
  }

  /** Deletes up to `limit` operations completed before `before`; returns how many. */
  async deleteCompletedBefore(before: Date, limit: number): Promise<number> {
    const result: { affectedRows: number } = await this.dataSource.query(
      `DELETE FROM trash_operations WHERE state = 'completed' AND completed_at < ? ORDER BY completed_at LIMIT ?`,
      [before, limit],
    );
    return result.affectedRows;
  }
}
