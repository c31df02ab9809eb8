import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { DeletionReason } from './video-lifecycle';

/** One row per purged video, kept after the video row is gone. The unique video id makes the write idempotent. */
@Entity({ name: 'deletion_audit' })
// The newest purge and those since a moment (the deletion ledger, a reindex's catch-up).
@Index('idx_deletion_audit_purged_at', ['purgedAt'])
export class DeletionAuditEntity {
  @PrimaryGeneratedColumn({ type: 'bigint', unsigned: true })
  id!: string;

  @Column({
    name: 'video_id',
    type: 'char',
    length: 36,
    charset: 'ascii',
    collation: 'ascii_bin',
    unique: true,
  })
  videoId!: string;

  /** Compared byte for byte, as every identity column (database/exact-text.ts, docs/contract.md §2). */
  @Column({ name: 'author_id', type: 'varchar', length: 128 })
  authorId!: string;

  @Column({ type: 'varchar', length: 16 })
  reason!: DeletionReason;

  @Column({ name: 'requested_by', type: 'varchar', length: 128, nullable: true })
  requestedBy!: string | null;

  @Column({ name: 'deleted_at', type: 'datetime', precision: 3, nullable: true })
  deletedAt!: Date | null;

  /** When retention would have purged it; kept for the receipt (docs/contract.md §10.3). */
  @Column({ name: 'purge_at', type: 'datetime', precision: 3, nullable: true })
  purgeAt!: Date | null;

  @Column({ name: 'objects_deleted', type: 'int', unsigned: true })
  objectsDeleted!: number;

  @Column({ name: 'purged_at', type: 'datetime', precision: 3, default: () => 'CURRENT_TIMESTAMP(3)' })
  purgedAt!: Date;
}
