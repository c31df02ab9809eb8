import { Column, Entity, Index } from 'typeorm';
import { BulkOperationColumns } from '../video/bulk-operation.entity';

/** `restore`: every video back to active (§8); `empty`: every video permanently deleted (§6). */
export type TrashOperationKind = 'restore' | 'empty';

/** `running`: the worker moves the trash's videos in batches; `completed`: every one has been moved. */
export type TrashOperationState = 'running' | 'completed';

/** The states of a trash operation that is not done: the sweep's and the metrics' reads both mean these. */
export const UNFINISHED_TRASH_STATES = ['running'] as const satisfies readonly TrashOperationState[];

/** One request to restore or empty an author's trash (docs/contract.md §10.1), worked off by the worker. */
@Entity({ name: 'trash_operations' })
@Index('idx_trash_operations_state', ['state', 'completedAt'])
export class TrashOperationEntity extends BulkOperationColumns {
  @Column({ type: 'varchar', length: 16 })
  kind!: TrashOperationKind;

  @Column({ type: 'varchar', length: 16 })
  state!: TrashOperationState;
}
