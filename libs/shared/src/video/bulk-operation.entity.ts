import { Column, PrimaryColumn } from 'typeorm';

/**
 * The columns every durable operation on an author's videos has (an erasure, a trash operation;
 * see bulk-operation.ts): who asked for whose videos, how far the walk has come, and the key that
 * allows one unfinished operation per author.
 */
export abstract class BulkOperationColumns {
  @PrimaryColumn({ type: 'char', length: 36, charset: 'ascii', collation: 'ascii_bin' })
  id!: string;

  /** Whose videos; compared byte for byte, as every identity column (database/exact-text.ts, docs/contract.md §2). */
  @Column({ name: 'author_id', type: 'varchar', length: 128 })
  authorId!: string;

  @Column({ name: 'requested_by', type: 'varchar', length: 128 })
  requestedBy!: string;

  /** The videos it acts on, counted when it was asked for. */
  @Column({ type: 'int', unsigned: true })
  total!: number;

  /** Videos moved; advanced in the same transaction as the batch it counts. */
  @Column({ type: 'int', unsigned: true, default: 0 })
  done!: number;

  /** The author while unfinished, NULL once completed: unique, so one unfinished operation per author. */
  @Column({ name: 'active_author', type: 'varchar', length: 128, nullable: true, unique: true })
  activeAuthor!: string | null;

  /** When it was asked for: what it covers is decided as of then. */
  @Column({ name: 'started_at', type: 'datetime', precision: 3 })
  startedAt!: Date;

  @Column({ name: 'completed_at', type: 'datetime', precision: 3, nullable: true })
  completedAt!: Date | null;

  @Column({ name: 'updated_at', type: 'datetime', precision: 3 })
  updatedAt!: Date;
}
