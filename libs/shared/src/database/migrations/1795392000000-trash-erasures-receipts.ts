import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The trash, author erasure and deletion receipts (docs/contract.md §10.1–§10.3):
 * - an index that lists an author's trash newest first and walks it in batches;
 * - the purge date in the audit record, so a receipt says it after the row is gone;
 * - the durable erasure requests. `active_author` holds the author while an erasure is unfinished
 *   and NULL after: its unique key lets one unfinished erasure exist per author, race-free.
 */
export class TrashErasuresReceipts1795392000000 implements MigrationInterface {
  name = 'TrashErasuresReceipts1795392000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      'ALTER TABLE videos ADD KEY idx_videos_author_state_deleted_at (author_id, state, deleted_at)',
    );
    await runner.query('ALTER TABLE deletion_audit ADD COLUMN purge_at DATETIME(3) NULL AFTER deleted_at');
    await runner.query(`
      CREATE TABLE erasures (
        id CHAR(36) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
        author_id VARCHAR(128) NOT NULL,
        mode VARCHAR(16) NOT NULL,
        retention_days INT UNSIGNED NULL,
        requested_by VARCHAR(128) NOT NULL,
        state VARCHAR(16) NOT NULL,
        total INT UNSIGNED NOT NULL,
        done INT UNSIGNED NOT NULL DEFAULT 0,
        after_id CHAR(36) CHARACTER SET ascii COLLATE ascii_bin NOT NULL DEFAULT '',
        active_author VARCHAR(128) NULL,
        started_at DATETIME(3) NOT NULL,
        completed_at DATETIME(3) NULL,
        updated_at DATETIME(3) NOT NULL,
        PRIMARY KEY (id),
        UNIQUE KEY uq_erasures_active_author (active_author),
        KEY idx_erasures_state (state)
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE erasures');
    await runner.query('ALTER TABLE deletion_audit DROP COLUMN purge_at');
    await runner.query('ALTER TABLE videos DROP KEY idx_videos_author_state_deleted_at');
  }
}
