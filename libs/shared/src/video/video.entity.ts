import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { DeletionReason } from './video-lifecycle';
import { VideoState } from './video-state';

@Entity({ name: 'videos' })
// Due purges: state = soft_deleted AND purge_at <= now. Stuck deletions: state = deleting AND updated_at < cutoff.
@Index('idx_videos_state_purge_at', ['state', 'purgeAt'])
@Index('idx_videos_state_updated_at', ['state', 'updatedAt'])
@Index('idx_videos_author_id', ['authorId'])
// An author's trash, newest first (docs/contract.md §10.1).
@Index('idx_videos_author_state_deleted_at', ['authorId', 'state', 'deletedAt'])
// What a search checked of each hit before searches kept copies of active videos (1795478400000-search-check-index.ts).
@Index('idx_videos_id_state_version', ['id', 'state', 'version'])
export class VideoEntity {
  /** Lowercase canonical UUID, compared as bytes. */
  @PrimaryColumn({ type: 'char', length: 36, charset: 'ascii', collation: 'ascii_bin' })
  id!: string;

  /** Compared byte for byte, as every identity column (database/exact-text.ts, docs/contract.md §2). */
  @Column({ name: 'author_id', type: 'varchar', length: 128 })
  authorId!: string;

  @Column({ type: 'varchar', length: 512 })
  title!: string;

  @Column({ type: 'mediumtext' })
  description!: string;

  @Column({ type: 'json' })
  tags!: string[];

  /** The names of the people in the video. */
  @Column({ type: 'json', default: () => "('[]')" })
  speakers!: string[];

  /** The event or channel the video belongs to. */
  @Column({ type: 'varchar', length: 512, nullable: true })
  event!: string | null;

  @Column({ name: 'published_at', type: 'datetime', precision: 3, nullable: true })
  publishedAt!: Date | null;

  /**
   * The language of the title and description, an ISO 639-3 code (docs/contract.md §2); `und`
   * (undetermined) for text too short to tell and for rows stored before videos had one.
   */
  @Column({ type: 'char', length: 3, charset: 'ascii', collation: 'ascii_bin', default: 'und' })
  language!: string;

  @Column({ type: 'varchar', length: 16, default: VideoState.Active })
  state!: VideoState;

  @Column({ name: 'deleted_at', type: 'datetime', precision: 3, nullable: true })
  deletedAt!: Date | null;

  @Column({ name: 'purge_at', type: 'datetime', precision: 3, nullable: true })
  purgeAt!: Date | null;

  @Column({ name: 'deletion_reason', type: 'varchar', length: 16, nullable: true })
  deletionReason!: DeletionReason | null;

  @Column({ name: 'deletion_requested_by', type: 'varchar', length: 128, nullable: true })
  deletionRequestedBy!: string | null;

  /** Bumped on every change; the search index stores it as an external version so stale writes lose. */
  @Column({ type: 'int', unsigned: true, default: 1 })
  version!: number;

  @Column({ name: 'created_at', type: 'datetime', precision: 3, default: () => 'CURRENT_TIMESTAMP(3)' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'datetime', precision: 3, default: () => 'CURRENT_TIMESTAMP(3)' })
  updatedAt!: Date;
}
