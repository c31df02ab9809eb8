import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

export type ErasureMode = 'soft' | 'permanent';

/**
 * `running`: the worker moves the author's videos in batches; `purging` (permanent only): every
 * video is being deleted, the worker's purges are not all finished; `completed`.
 */
export type ErasureState = 'running' | 'purging' | 'completed';

/** One request to erase an author's videos (docs/contract.md §10.2), worked off by the worker. */
@Entity({ name: 'erasures' })
@Index('idx_erasures_state', ['state'])
export class ErasureEntity {
  @PrimaryColumn({ type: 'char', length: 36, charset: 'ascii', collation: 'ascii_bin' })
  id!: string;

  /** Compared byte for byte, as every identity column (database/exact-text.ts, docs/contract.md §2). */
  @Column({ name: 'author_id', type: 'varchar', length: 128 })
  authorId!: string;

  @Column({ type: 'varchar', length: 16 })
  mode!: ErasureMode;

  /** As asked; none means the configured default, as for one video. */
  @Column({ name: 'retention_days', type: 'int', unsigned: true, nullable: true })
  retentionDays!: number | null;

  @Column({ name: 'requested_by', type: 'varchar', length: 128 })
  requestedBy!: string;

  @Column({ type: 'varchar', length: 16 })
  state!: ErasureState;

  /** The author's videos when it was asked for (created up to startedAt, not being deleted). */
  @Column({ type: 'int', unsigned: true })
  total!: number;

  /** Advanced in the same transaction as the batch it counts. */
  @Column({ type: 'int', unsigned: true, default: 0 })
  done!: number;

  /** The last video id the walk has passed (ids in byte order). */
  @Column({
    name: 'after_id',
    type: 'char',
    length: 36,
    charset: 'ascii',
    collation: 'ascii_bin',
    default: '',
  })
  afterId!: string;

  /** The author while unfinished, NULL once completed: unique, so one unfinished erasure per author. */
  @Column({ name: 'active_author', type: 'varchar', length: 128, nullable: true, unique: true })
  activeAuthor!: string | null;

  @Column({ name: 'started_at', type: 'datetime', precision: 3 })
  startedAt!: Date;

  @Column({ name: 'completed_at', type: 'datetime', precision: 3, nullable: true })
  completedAt!: Date | null;

  @Column({ name: 'updated_at', type: 'datetime', precision: 3 })
  updatedAt!: Date;
}
