import type { MigrationInterface, QueryRunner } from 'typeorm';
import { exactCollation, identityColumn } from '../exact-text';

/**
 * Trash operations (docs/contract.md §10.1): restoring or emptying a whole trash is a durable
 * request the worker works off, like an erasure. `active_author` holds the author while the
 * operation runs and NULL after: its unique key lets one run per author, race-free. Identities
 * are compared byte for byte, as in every table (`ExactIdentities1795564800000`). `(state,
 * completed_at)` serves the sweep's two reads: the running ones, and the completed ones past
 * their retention.
 */
export class TrashOperations1795824000000 implements MigrationInterface {
  name = 'TrashOperations1795824000000';

  async up(runner: QueryRunner): Promise<void> {
    const collation = await exactCollation(runner);
    await runner.query(`
      CREATE TABLE trash_operations (
        id CHAR(36) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
        author_id ${identityColumn(collation, false)},
        kind VARCHAR(16) NOT NULL,
        requested_by ${identityColumn(collation, false)},
        state VARCHAR(16) NOT NULL,
        total INT UNSIGNED NOT NULL,
        done INT UNSIGNED NOT NULL DEFAULT 0,
        active_author ${identityColumn(collation, true)},
        started_at DATETIME(3) NOT NULL,
        completed_at DATETIME(3) NULL,
        updated_at DATETIME(3) NOT NULL,
        PRIMARY KEY (id),
        UNIQUE KEY uq_trash_operations_active_author (active_author),
        KEY idx_trash_operations_state (state, completed_at)
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE trash_operations');
  }
}
