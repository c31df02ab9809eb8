import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

export type DeliveryState = 'pending' | 'delivered' | 'dead';

/**
 * One event on its way to one receiver. MySQL holds what is pending: the queue only makes the
 * worker prompt, and a sweep finds every due delivery again after Redis has lost its jobs.
 */
@Entity({ name: 'webhook_deliveries' })
@Index('uq_webhook_deliveries_event_endpoint', ['eventId', 'endpointKey'], { unique: true })
@Index('idx_webhook_deliveries_due', ['state', 'nextAttemptAt'])
@Index('idx_webhook_deliveries_order', ['endpointKey', 'subject', 'id'])
@Index('idx_webhook_deliveries_settled', ['state', 'lastAttemptAt'])
@Index('idx_webhook_deliveries_receiver', ['state', 'endpointKey', 'id'])
export class WebhookDeliveryEntity {
  /** Creation order, which is the order of the events per subject. */
  @PrimaryGeneratedColumn({ type: 'bigint', unsigned: true })
  id!: string;

  @Column({ name: 'event_id', type: 'char', length: 36, charset: 'ascii', collation: 'ascii_bin' })
  eventId!: string;

  /** The receiver's URL without credentials or query values (`shownUrl`): rows are read by operators. */
  @Column({ type: 'varchar', length: 2048 })
  endpoint!: string;

  /** SHA-256 of the URL without credentials (`receiverKey`): an indexable name for a receiver of any length. */
  @Column({ name: 'endpoint_key', type: 'char', length: 64, charset: 'ascii', collation: 'ascii_bin' })
  endpointKey!: string;

  @Column({ type: 'varchar', length: 128 })
  subject!: string;

  @Column({ type: 'varchar', length: 16, default: 'pending' })
  state!: DeliveryState;

  /** Attempts made (failed ones, and the one that succeeded). */
  @Column({ type: 'int', unsigned: true, default: 0 })
  attempts!: number;

  @Column({ name: 'next_attempt_at', type: 'datetime', precision: 3 })
  nextAttemptAt!: Date;

  /** Start of the retry window: the delivery is dead once it still fails that long after. */
  @Column({ name: 'first_failed_at', type: 'datetime', precision: 3, nullable: true })
  firstFailedAt!: Date | null;

  @Column({ name: 'last_attempt_at', type: 'datetime', precision: 3, nullable: true })
  lastAttemptAt!: Date | null;

  @Column({ name: 'last_error', type: 'varchar', length: 512, nullable: true })
  lastError!: string | null;

  @Column({ name: 'delivered_at', type: 'datetime', precision: 3, nullable: true })
  deliveredAt!: Date | null;
}
