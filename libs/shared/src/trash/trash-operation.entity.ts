import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** `restore`: every video back to active (§8); `empty`: every video permanently deleted (§6). */
export type TrashOperationKind = 'restore' | 'empty';

/** `running`: the worker moves the trash's videos in batches; `completed`: every one has been moved. */
export type TrashOperationState = 'running' | 'completed';

/** One request to restore or empty an author's trash (docs/contract.md §10.1), worked off by the worker. */
@Entity({ name: 'trash_operations' })
@Index('idx_trash_operations_state', ['state', 'completedAt'])
export class TrashOperationEntity {
  @PrimaryColumn({ type: 'char', length: 36, charset: 'ascii', collation: 'ascii_bin' })
  id!: string;

  /** Whose trash; compared byte for byte, as every identity column (database/exact-text.ts). */
  @Column({ name: 'author_id', type: 'varchar', length: 128 })
  authorId!: string;

  @Column({ type: 'varchar', length: 16 })
  kind!: TrashOperationKind;

  @Column({ name: 'requested_by', type: 'varchar', length: 128 })
  requestedBy!: string;

  @Column({ type: 'varchar', length: 16 })
  state!: TrashOperationState;

  /** The videos in the trash when it was asked for (soft-deleted up to startedAt). */
  @Column({ type: 'int', unsigned: true })
  total!: number;

  /** Videos moved (restored, or their deletion started); advanced in the same transaction as the batch. */
  @Column({ type: 'int', unsigned: true, default: 0 })
  done!: number;

  /** The author while running, NULL once completed: unique, so one running operation per author. */
  @Column({ name: 'active_author', type: 'varchar', length: 128, nullable: true, unique: true })
  activeAuthor!: string | null;

  /** When it was asked for: the trash it covers is the videos soft-deleted up to then. */
  @Column({ name: 'started_at', type: 'datetime', precision: 3 })
  startedAt!: Date;

  @Column({ name: 'completed_at', type: 'datetime', precision: 3, nullable: true })
  completedAt!: Date | null;

  @Column({ name: 'updated_at', type: 'datetime', precision: 3 })
  updatedAt!: Date;
}
