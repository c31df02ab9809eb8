import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The outbox: every event, written in the transaction of the change it reports, and one delivery
 * row per event and webhook receiver, which the worker works off (docs/contract.md §10.4).
 */
export class Outbox1795348800000 implements MigrationInterface {
  name = 'Outbox1795348800000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE outbox_events (
        seq BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
        id CHAR(36) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
        type VARCHAR(64) NOT NULL,
        subject VARCHAR(128) NOT NULL,
        body MEDIUMTEXT NOT NULL,
        occurred_at DATETIME(3) NOT NULL,
        PRIMARY KEY (seq),
        UNIQUE KEY uq_outbox_events_id (id),
        KEY idx_outbox_events_subject (subject, seq)
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await runner.query(`
      CREATE TABLE webhook_deliveries (
        id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
        event_id CHAR(36) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
        endpoint VARCHAR(2048) NOT NULL,
        endpoint_key CHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
        subject VARCHAR(128) NOT NULL,
        state VARCHAR(16) NOT NULL DEFAULT 'pending',
        attempts INT UNSIGNED NOT NULL DEFAULT 0,
        next_attempt_at DATETIME(3) NOT NULL,
        first_failed_at DATETIME(3) NULL,
        last_attempt_at DATETIME(3) NULL,
        last_error VARCHAR(512) NULL,
        delivered_at DATETIME(3) NULL,
        PRIMARY KEY (id),
        UNIQUE KEY uq_webhook_deliveries_event_endpoint (event_id, endpoint_key),
        KEY idx_webhook_deliveries_due (state, next_attempt_at),
        KEY idx_webhook_deliveries_order (endpoint_key, subject, id)
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE webhook_deliveries');
    await runner.query('DROP TABLE outbox_events');
  }
}
