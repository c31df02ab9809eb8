import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { BulkOperationRepository } from '../video/bulk-operation.repository';
import { erasableSql } from '../video/video-batch.repository';
import {
  ErasureEntity,
  UNFINISHED_ERASURE_STATES,
  type ErasureMode,
  type ErasureState,
} from './erasure.entity';

/** What a new erasure request says; its total is counted as it is written. */
export interface NewErasure {
  id: string;
  authorId: string;
  mode: ErasureMode;
  retentionDays: number | null;
  requestedBy: string;
  startedAt: Date;
}

/** Plain data access for erasure requests: no rules here, the erasure services hold those. */
@Injectable()
export class ErasureRepository extends BulkOperationRepository<
  ErasureEntity,
  (typeof UNFINISHED_ERASURE_STATES)[number]
> {
  constructor(dataSource: DataSource) {
    super(dataSource, ErasureEntity, UNFINISHED_ERASURE_STATES);
  }

  /**
   * Writes a running erasure with its total (the author's erasable videos, counted in the same
   * statement), unless one is unfinished for the author: the unique `active_author` refuses a
   * second, whichever request comes first. Returns whether it was written.
   */
  async insertUnlessActive(erasure: NewErasure): Promise<boolean> {
    const erasable = erasableSql(erasure.authorId, erasure.startedAt);
    return this.insertUnlessActiveRow(
      `INSERT INTO erasures
           (id, author_id, mode, retention_days, requested_by, state, total, done, after_id, active_author,
            started_at, updated_at)
         SELECT ?, ?, ?, ?, ?, 'running', COUNT(*), 0, '', ?, ?, ? FROM videos WHERE ${erasable.where}`,
      [
        erasure.id,
        erasure.authorId,
        erasure.mode,
        erasure.retentionDays,
        erasure.requestedBy,
        erasure.authorId,
        erasure.startedAt,
        erasure.startedAt,
        ...erasable.parameters,
      ],
    );
  }

  /**
   * Moves the walk past `afterId`, counting `videos` more as done. Capped at the total: a video
   * written for the author while the total was counted may be walked without having been counted.
   */
  async advance(
    manager: EntityManager,
    id: string,
    afterId: string,
    videos: number,
    now: Date,
  ): Promise<void> {
    await manager.query(
      'UPDATE erasures SET after_id = ?, done = LEAST(total, done + ?), updated_at = ? WHERE id = ?',
      [afterId, videos, now, id],
    );
  }

  /**
   * Ends the walk: every video is done (one that another deletion took meanwhile is gone too).
   * `completed` also frees the author for a new erasure. Returns whether the row moved.
   */
  async finishWalk(
    manager: EntityManager,
    id: string,
    state: Exclude<ErasureState, 'running'>,
    now: Date,
  ): Promise<boolean> {
    const completed = state === 'completed';
    const result: { affectedRows: number } = await manager.query(
      `UPDATE erasures SET state = ?, done = total, completed_at = ?, active_author = ${completed ? 'NULL' : 'active_author'},
         updated_at = ?
       WHERE id = ? AND state <> 'completed'`,
      [state, completed ? now : null, now, id],
    );
    return result.affectedRows > 0;
  }

  /** Ids and states of every unfinished erasure, for the sweep (few: at most one per author). */
  unfinished(): Promise<Pick<ErasureEntity, 'id' | 'state'>[]> {
    return this.dataSource.query('SELECT id, state FROM erasures WHERE state IN (?)', [
      this.unfinishedStates,
    ]);
  }
}
