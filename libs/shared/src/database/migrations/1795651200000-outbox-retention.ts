import type { MigrationInterface, QueryRunner } from 'typeorm';
import { exactCollation, identityColumn } from '../exact-text';

/** Rows of `outbox_events` per backfill statement: each is a short transaction of its own. */
const BACKFILL_BATCH = 10_000;

/**
 * What the outbox's pruning needs (docs/contract.md §10.4, `OutboxRetentionService`):
 * - `outbox_events.author_id`, the author every event is about, compared byte for byte, and its
 *   index with `seq`, so an erasure finds the author's events without reading bodies;
 * - `outbox_events.erased_at`, set when the author's erasure completed: such an event goes as soon
 *   as its deliveries settle, whatever the retention; indexed, since the prune looks for them first;
 * - `(state, last_attempt_at)` on the deliveries, through which settled ones are deleted by age (a
 *   delivered row's last attempt is its delivery).
 *
 * Existing events get their author from their body and, when that author's erasure already
 * completed, its mark: a batch of seqs per statement, so the table is never locked for long (MariaDB
 * commits the migration's transaction at the ALTER, so each statement after it commits alone).
 */
export class OutboxRetention1795651200000 implements MigrationInterface {
  name = 'OutboxRetention1795651200000';

  async up(runner: QueryRunner): Promise<void> {
    const author = identityColumn(await exactCollation(runner), true);
    await runner.query(`
      ALTER TABLE outbox_events
        ADD COLUMN author_id ${author},
        ADD COLUMN erased_at DATETIME(3) NULL,
        ADD KEY idx_outbox_events_author (author_id, seq),
        ADD KEY idx_outbox_events_erased (erased_at),
        ALGORITHM=INPLACE, LOCK=NONE`);
    await runner.query(
      'ALTER TABLE webhook_deliveries ADD KEY idx_webhook_deliveries_settled (state, last_attempt_at), ALGORITHM=INPLACE, LOCK=NONE',
    );
    const [bounds] = (await runner.query(
      'SELECT MIN(seq) AS first, MAX(seq) AS last FROM outbox_events',
    )) as {
      first: string | null;
      last: string | null;
    }[];
    if (bounds?.first == null || bounds.last == null) return;
    for (let from = Number(bounds.first); from <= Number(bounds.last); from += BACKFILL_BATCH) {
      const range = [from, from + BACKFILL_BATCH];
      await runner.query(
        `UPDATE outbox_events SET author_id = JSON_VALUE(body, '$.data.authorId')
         WHERE seq >= ? AND seq < ? AND author_id IS NULL`,
        range,
      );
      await runner.query(
        `UPDATE outbox_events o
           JOIN erasures e ON e.author_id = o.author_id AND e.state = 'completed'
         SET o.erased_at = e.completed_at
         WHERE o.seq >= ? AND o.seq < ? AND o.erased_at IS NULL AND o.occurred_at <= e.completed_at`,
        range,
      );
    }
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE webhook_deliveries DROP KEY idx_webhook_deliveries_settled');
    await runner.query(
      'ALTER TABLE outbox_events DROP KEY idx_outbox_events_erased, DROP KEY idx_outbox_events_author, DROP COLUMN erased_at, DROP COLUMN author_id',
    );
  }
}
