import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `(purged_at)` on the audit records: the deletion ledger asks for the newest purge
 * (`MAX(purged_at)`) and a reindex's catch-up for the videos purged since it began
 * (`purged_at >= ?`); without it both read every record, a million after a million purges. Built
 * in place, without locking the table: purges go on being recorded while it builds.
 */
export class AuditPurgedAtIndex1795996800000 implements MigrationInterface {
  name = 'AuditPurgedAtIndex1795996800000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      'ALTER TABLE deletion_audit ADD KEY idx_deletion_audit_purged_at (purged_at), ALGORITHM=INPLACE, LOCK=NONE',
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE deletion_audit DROP KEY idx_deletion_audit_purged_at');
  }
}
