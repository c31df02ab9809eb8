import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { transactionRetryingDeadlocks } from '../database/transaction';
import type { EventToPrune, SettledState } from './outbox-retention';

/** What the prune reads of each event: its deliveries counted through their unique (event, receiver) key. */
const EVENT_TO_PRUNE = `SELECT o.seq, o.id, o.occurred_at AS occurredAt, o.erased_at IS NOT NULL AS erased,
    (SELECT COUNT(*) FROM webhook_deliveries d WHERE d.event_id = o.id) AS deliveries,
    (SELECT COUNT(*) FROM webhook_deliveries d WHERE d.event_id = o.id AND d.state = 'pending') AS pending
  FROM outbox_events o`;

interface EventRow {
  seq: string;
  id: string;
  occurredAt: Date;
  erased: number | string;
  deliveries: number | string;
  pending: number | string;
}

/**
 * Plain data access for the outbox's pruning: no rules here (outbox-retention.ts and
 * `OutboxRetentionService` hold them). Every statement is bounded by a limit and goes through an
 * index, so none holds locks for long, whatever the tables' size.
 */
@Injectable()
export class OutboxRetentionRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Marks every event about the author not marked yet, in the caller's transaction. Returns how many. */
  async markAuthorErased(manager: EntityManager, authorId: string, now: Date): Promise<number> {
    const result: { affectedRows: number } = await manager.query(
      'UPDATE outbox_events SET erased_at = ? WHERE author_id = ? AND erased_at IS NULL',
      [now, authorId],
    );
    return result.affectedRows;
  }

  /** Events after `afterSeq` in recording order. */
  async eventsAfter(afterSeq: string, limit: number): Promise<EventToPrune[]> {
    const rows: EventRow[] = await this.dataSource.query(
      `${EVENT_TO_PRUNE} WHERE o.seq > ? ORDER BY o.seq LIMIT ?`,
      [afterSeq, limit],
    );
    return rows.map(toEvent);
  }

  /** Erased events after `afterSeq` in recording order (few: they go as their deliveries settle). */
  async erasedEventsAfter(afterSeq: string, limit: number): Promise<EventToPrune[]> {
    const rows: EventRow[] = await this.dataSource.query(
      `${EVENT_TO_PRUNE} WHERE o.erased_at IS NOT NULL AND o.seq > ? ORDER BY o.seq LIMIT ?`,
      [afterSeq, limit],
    );
    return rows.map(toEvent);
  }

  /**
   * Deletes up to `limit` deliveries in `state` whose last attempt was before `before`, oldest first.
   * Found by a plain read through `(state, last_attempt_at)`, then deleted by id with the condition
   * checked again: a DELETE with that ORDER BY and LIMIT let MariaDB pick the due-deliveries index
   * and sort, locking every delivered row for each batch.
   */
  async deleteSettled(state: SettledState, before: Date, limit: number): Promise<number> {
    const rows: { id: string }[] = await this.dataSource.query(
      `SELECT id FROM webhook_deliveries FORCE INDEX (idx_webhook_deliveries_settled)
       WHERE state = ? AND last_attempt_at < ? ORDER BY last_attempt_at LIMIT ?`,
      [state, before, limit],
    );
    if (rows.length === 0) return 0;
    const result: { affectedRows: number } = await this.dataSource.query(
      'DELETE FROM webhook_deliveries WHERE id IN (?) AND state = ? AND last_attempt_at < ?',
      [rows.map((row) => row.id), state, before],
    );
    return result.affectedRows;
  }

  /**
   * Deletes events with their settled deliveries, in one short transaction. An event that still
   * has a delivery (one an operator has just retried) stays, and so does that delivery.
   */
  deleteEvents(ids: string[]): Promise<{ events: number; deliveries: number }> {
    if (ids.length === 0) return Promise.resolve({ events: 0, deliveries: 0 });
    return transactionRetryingDeadlocks(this.dataSource, async (manager) => {
      const deliveries: { affectedRows: number } = await manager.query(
        `DELETE FROM webhook_deliveries WHERE event_id IN (?) AND state <> 'pending'`,
        [ids],
      );
      const events: { affectedRows: number } = await manager.query(
        `DELETE FROM outbox_events WHERE id IN (?)
           AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = outbox_events.id)`,
        [ids],
      );
      return { events: events.affectedRows, deliveries: deliveries.affectedRows };
    });
  }
}

function toEvent(row: EventRow): EventToPrune {
  return {
    seq: String(row.seq),
    id: row.id,
    occurredAt: row.occurredAt,
    erased: Number(row.erased) === 1,
    deliveries: Number(row.deliveries),
    pending: Number(row.pending),
  };
}
