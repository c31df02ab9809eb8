import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { EventType } from './events';

/** One event, recorded in the transaction of the change it reports; pruned after delivery (outbox-retention.ts). */
@Entity({ name: 'outbox_events' })
@Index('idx_outbox_events_subject', ['subject', 'seq'])
@Index('idx_outbox_events_author', ['authorId', 'seq'])
@Index('idx_outbox_events_erased', ['erasedAt'])
export class OutboxEventEntity {
  /** Recording order: a later change to the same subject always has a larger one. */
  @PrimaryGeneratedColumn({ type: 'bigint', unsigned: true })
  seq!: string;

  /** The event's id, sent as `webhook-id`: the same on every retry, so receivers can drop repeats. */
  @Column({ type: 'char', length: 36, charset: 'ascii', collation: 'ascii_bin', unique: true })
  id!: string;

  @Column({ type: 'varchar', length: 64 })
  type!: EventType;

  /** What the order is kept for: the video's id (or the erasure's). */
  @Column({ type: 'varchar', length: 128 })
  subject!: string;

  /** The exact body every receiver gets, fixed when the event is recorded. */
  @Column({ type: 'mediumtext' })
  body!: string;

  @Column({ name: 'occurred_at', type: 'datetime', precision: 3 })
  occurredAt!: Date;

  /**
   * The author the event is about, compared byte for byte (the server's exact collation, see
   * database/exact-text.ts): an erasure finds its events by it.
   */
  @Column({ name: 'author_id', type: 'varchar', length: 128, nullable: true })
  authorId!: string | null;

  /** When the author's erasure completed: the event goes as soon as its deliveries settle. */
  @Column({ name: 'erased_at', type: 'datetime', precision: 3, nullable: true })
  erasedAt!: Date | null;
}
