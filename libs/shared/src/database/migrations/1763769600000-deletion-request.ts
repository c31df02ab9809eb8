import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Who asked for a deletion and why travel with the row until the audit record is written. */
export class DeletionRequest1763769600000 implements MigrationInterface {
  name = 'DeletionRequest1763769600000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE videos
        ADD COLUMN deletion_reason VARCHAR(16) NULL AFTER purge_at,
        ADD COLUMN deletion_requested_by VARCHAR(128) NULL AFTER deletion_reason`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE videos DROP COLUMN deletion_requested_by, DROP COLUMN deletion_reason');
  }
}
