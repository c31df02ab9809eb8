import { Column, Entity, Index } from 'typeorm';
import { BulkOperationColumns } from '../video/bulk-operation.entity';

export type ErasureMode = 'soft' | 'permanent';

/**
 * `running`: the worker moves the author's videos in batches; `purging` (permanent only): every
 * video is being deleted, the worker's purges are not all finished; `completed`.
 */
export type ErasureState = 'running' | 'purging' | 'completed';

/** The states of an erasure that is not done: the sweep's and the metrics' reads both mean these. */
export const UNFINISHED_ERASURE_STATES = ['running', 'purging'] as const satisfies readonly ErasureState[];

/** One request to erase an author's videos (docs/contract.md §10.2), worked off by the worker. */
@Entity({ name: 'erasures' })
@Index('idx_erasures_state', ['state'])
export class ErasureEntity extends BulkOperationColumns {
  @Column({ type: 'varchar', length: 16 })
  mode!: ErasureMode;

  /** As asked; none means the configured default, as for one video. */
  @Column({ name: 'retention_days', type: 'int', unsigned: true, nullable: true })
  retentionDays!: number | null;

  @Column({ type: 'varchar', length: 16 })
  state!: ErasureState;

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
}
