import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { Endpoint } from '../net/receiver-url';
import type { EventType, RecordedEvent } from './events';
import type { DeliveryState } from './webhook-delivery.entity';

/** What one delivery attempt needs: the delivery, and its event's id and body. */
export interface DeliveryToSend {
  id: string;
  eventId: string;
  type: EventType;
  subject: string;
  endpoint: string;
  endpointKey: string;
  state: DeliveryState;
  attempts: number;
  firstFailedAt: Date | null;
  body: string;
}

/** A delivery that has failed at least once, as an operator lists it. */
export interface FailingDelivery {
  id: string;
  eventId: string;
  type: EventType;
  subject: string;
  endpoint: string;
  state: DeliveryState;
  attempts: number;
  firstFailedAt: Date | null;
  lastAttemptAt: Date | null;
  nextAttemptAt: Date;
  lastError: string | null;
}

export interface DueDelivery {
  id: string;
  attempts: number;
}

/** One row of the sweep's window: a pending delivery, and whether it is due and waits for no earlier one. */
export interface WindowDelivery extends DueDelivery {
  ready: boolean;
}

/**
 * The order rule in SQL: delivery `d` waits while an earlier delivery of an event about the same
 * subject to the same receiver has not been delivered (delivery ids follow the events' order).
 */
const WAITS_FOR_EARLIER = `EXISTS (
  SELECT 1 FROM webhook_deliveries e
  WHERE e.endpoint_key = d.endpoint_key AND e.subject = d.subject AND e.id < d.id AND e.state <> 'delivered')`;

/**
 * The webhook sweep's read (docs/architecture.md, "One receiver cannot cost the others"): the next
 * `limit` pending deliveries to one receiver after a position, in id order, through
 * `idx_webhook_deliveries_receiver` (state, endpoint_key, id), so a pass reads at most `limit`
 * rows (and their order checks) however many are pending; each says whether it is due and waits
 * for no earlier one. Parameters: now, receiver key, position, limit. Exported for the EXPLAIN of
 * the tests and the bench. `state` is written as a range of one value, here and in
 * `NEXT_PENDING_RECEIVER_SQL`: with `state = 'pending'` MariaDB may pick a `ref` on the first key
 * parts, which reads from the receiver's first pending row (or the first receiver's), not from
 * the position; and the order names the index's columns, so the range is read in order, not sorted.
 */
export const SWEEP_WINDOW_SQL = `SELECT d.id, d.attempts,
    CASE WHEN d.next_attempt_at <= ? THEN NOT ${WAITS_FOR_EARLIER} ELSE 0 END AS ready
  FROM (
    SELECT p.id, p.attempts, p.endpoint_key, p.subject, p.next_attempt_at
    FROM webhook_deliveries p FORCE INDEX (idx_webhook_deliveries_receiver)
    WHERE p.state >= 'pending' AND p.state <= 'pending' AND p.endpoint_key = ? AND p.id > ?
    ORDER BY p.state, p.endpoint_key, p.id LIMIT ?
  ) d
  ORDER BY d.id`;

/**
 * The first receiver after a key that has a pending delivery: one probe of the index (MariaDB
 * reads every pending row for a `DISTINCT`, finding no loose scan). Parameter: the key after which.
 */
export const NEXT_PENDING_RECEIVER_SQL = `SELECT endpoint_key AS endpointKey
  FROM webhook_deliveries FORCE INDEX (idx_webhook_deliveries_receiver)
  WHERE state >= 'pending' AND state <= 'pending' AND endpoint_key > ? ORDER BY state, endpoint_key LIMIT 1`;

/** Plain data access for the outbox and its deliveries: no rules here, the services hold those. */
@Injectable()
export class OutboxRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Writes events and one pending delivery per event and receiver, in the caller's transaction. */
  async insert(manager: EntityManager, events: RecordedEvent[], endpoints: Endpoint[]): Promise<void> {
    if (events.length === 0) return;
    await manager.query(
      'INSERT INTO outbox_events (id, type, subject, author_id, body, occurred_at) VALUES ?',
      [
        events.map((event) => [
          event.id,
          event.type,
          event.subject,
          event.authorId,
          event.body,
          event.occurredAt,
        ]),
      ],
    );
    if (endpoints.length === 0) return;
    await manager.query(
      'INSERT INTO webhook_deliveries (event_id, endpoint, endpoint_key, subject, next_attempt_at) VALUES ?',
      [
        events.flatMap((event) =>
          endpoints.map((endpoint) => [
            event.id,
            endpoint.url,
            endpoint.key,
            event.subject,
            event.occurredAt,
          ]),
        ),
      ],
    );
  }

  /**
   * The receivers with pending deliveries, one probe of `idx_webhook_deliveries_receiver` each
   * (`NEXT_PENDING_RECEIVER_SQL`): a `DISTINCT` would read every pending row.
   */
  async pendingReceivers(): Promise<string[]> {
    const keys: string[] = [];
    for (;;) {
      const [row]: { endpointKey: string }[] = await this.dataSource.query(NEXT_PENDING_RECEIVER_SQL, [
        keys.at(-1) ?? '',
      ]);
      if (!row) return keys;
      keys.push(row.endpointKey);
    }
  }

  /** The sweep's window of one receiver's pending deliveries after `afterId` (`SWEEP_WINDOW_SQL`). */
  async sweepWindow(
    endpointKey: string,
    afterId: string,
    limit: number,
    now: Date,
  ): Promise<WindowDelivery[]> {
    const rows: { id: string; attempts: number; ready: number | string }[] = await this.dataSource.query(
      SWEEP_WINDOW_SQL,
      [now, endpointKey, afterId, limit],
    );
    return rows.map((row) => ({
      id: String(row.id),
      attempts: row.attempts,
      ready: Number(row.ready) === 1,
    }));
  }

  /** The next delivery to the same receiver about the same subject, if it no longer waits and is due. */
  async nextHead(
    after: Pick<DeliveryToSend, 'id' | 'endpointKey' | 'subject'>,
    now: Date,
  ): Promise<DueDelivery | undefined> {
    const rows: DueDelivery[] = await this.dataSource.query(
      `SELECT d.id, d.attempts FROM webhook_deliveries d
       WHERE d.endpoint_key = ? AND d.subject = ? AND d.id > ? AND d.state = 'pending'
         AND d.next_attempt_at <= ? AND NOT ${WAITS_FOR_EARLIER}
       ORDER BY d.id LIMIT 1`,
      [after.endpointKey, after.subject, after.id, now],
    );
    return rows[0];
  }

  async findToSend(id: string): Promise<DeliveryToSend | undefined> {
    const rows: DeliveryToSend[] = await this.dataSource.query(
      `SELECT d.id, d.event_id AS eventId, o.type, d.subject, d.endpoint, d.endpoint_key AS endpointKey, d.state,
         d.attempts, d.first_failed_at AS firstFailedAt, o.body
       FROM webhook_deliveries d JOIN outbox_events o ON o.id = d.event_id WHERE d.id = ?`,
      [id],
    );
    return rows[0];
  }

  /** Whether an earlier delivery to the same receiver about the same subject is still undelivered. */
  async waitsForEarlier(id: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `SELECT 1 FROM webhook_deliveries d WHERE d.id = ? AND ${WAITS_FOR_EARLIER}`,
      [id],
    );
    return rows.length > 0;
  }

  /** Records a successful attempt, unless another attempt has been recorded since `attempts` was read. */
  async markDelivered(id: string, attempts: number, now: Date): Promise<boolean> {
    const result: { affectedRows: number } = await this.dataSource.query(
      `UPDATE webhook_deliveries SET state = 'delivered', attempts = attempts + 1, last_attempt_at = ?,
         delivered_at = ?, last_error = NULL
       WHERE id = ? AND attempts = ? AND state = 'pending'`,
      [now, now, id, attempts],
    );
    return result.affectedRows > 0;
  }

  /** Records a failed attempt: either the time of the next one, or that the delivery is dead (`next` null). */
  async markFailed(
    id: string,
    attempts: number,
    failure: { now: Date; error: string; next: Date | null },
  ): Promise<boolean> {
    const result: { affectedRows: number } = await this.dataSource.query(
      `UPDATE webhook_deliveries SET state = ?, attempts = attempts + 1, last_attempt_at = ?,
         first_failed_at = COALESCE(first_failed_at, ?), next_attempt_at = COALESCE(?, next_attempt_at), last_error = ?
       WHERE id = ? AND attempts = ? AND state = 'pending'`,
      [
        failure.next ? 'pending' : 'dead',
        failure.now,
        failure.now,
        failure.next,
        failure.error.slice(0, 512),
        id,
        attempts,
      ],
    );
    return result.affectedRows > 0;
  }

  /** Deliveries that have failed at least once and are not delivered (dead ones first), oldest first. */
  failing(limit: number): Promise<FailingDelivery[]> {
    return this.dataSource.query(
      `SELECT d.id, d.event_id AS eventId, o.type, d.subject, d.endpoint, d.state, d.attempts,
         d.first_failed_at AS firstFailedAt, d.last_attempt_at AS lastAttemptAt, d.next_attempt_at AS nextAttemptAt,
         d.last_error AS lastError
       FROM webhook_deliveries d JOIN outbox_events o ON o.id = d.event_id
       WHERE d.state = 'dead' OR (d.state = 'pending' AND d.attempts > 0)
       ORDER BY d.state = 'dead' DESC, d.id LIMIT ?`,
      [limit],
    );
  }

  /**
   * Makes failing and dead deliveries (of one event, or all) due now, with a new retry window.
   * Returns how many.
   */
  async retryFailing(now: Date, eventId?: string): Promise<number> {
    const result: { affectedRows: number } = await this.dataSource.query(
      `UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = ?, first_failed_at = NULL
       WHERE (state = 'dead' OR (state = 'pending' AND attempts > 0))${eventId ? ' AND event_id = ?' : ''}`,
      [now, ...(eventId ? [eventId] : [])],
    );
    return result.affectedRows;
  }

  /** Undelivered deliveries by kind: waiting for their first attempt, failing (retried), dead. */
  async undeliveredCounts(): Promise<{ pending: number; failing: number; dead: number }> {
    const rows: { state: DeliveryState; failing: number | string; n: number | string }[] =
      await this.dataSource.query(
        `SELECT state, attempts > 0 AS failing, COUNT(*) AS n FROM webhook_deliveries
       WHERE state IN ('pending', 'dead') GROUP BY state, attempts > 0`,
      );
    const counts = { pending: 0, failing: 0, dead: 0 };
    for (const row of rows) {
      const kind = row.state === 'dead' ? 'dead' : Number(row.failing) ? 'failing' : 'pending';
      counts[kind] += Number(row.n);
    }
    return counts;
  }

  /** Every event recorded about a subject, in order (tests and the CLI read the outbox through this). */
  eventsAbout(subject: string): Promise<RecordedEvent[]> {
    return this.dataSource.query(
      `SELECT id, type, subject, author_id AS authorId, body, occurred_at AS occurredAt FROM outbox_events
       WHERE subject = ? ORDER BY seq`,
      [subject],
    );
  }
}
