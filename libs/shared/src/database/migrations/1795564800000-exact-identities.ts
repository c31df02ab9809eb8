import type { MigrationInterface, QueryRunner } from 'typeorm';
import { exactCollation, identityColumn } from '../exact-text';

/** Every column that holds an author id or a caller's subject, and whether it may be NULL. */
const IDENTITY_COLUMNS: Record<string, [column: string, nullable: boolean][]> = {
  videos: [
    ['author_id', false],
    ['deletion_requested_by', true],
  ],
  deletion_audit: [
    ['author_id', false],
    ['requested_by', true],
  ],
  erasures: [
    ['author_id', false],
    ['requested_by', false],
    ['active_author', true],
  ],
};

/**
 * Identities compared byte for byte (docs/contract.md §2): under `utf8mb4_unicode_ci`, `ACC-X`,
 * `acc-x ` and `acc-äx` were the same author as `acc-x` to MySQL (a trash, a batch, the one active
 * erasure per author) while the code told them apart. The new collation is finer than the old one,
 * so no unique key can be violated by it.
 *
 * On MariaDB each table is altered in place without a copy (`ALGORITHM=NOCOPY, LOCK=NONE`): only the
 * indexes on these columns are rebuilt, reads and writes go on, and the statement holds its
 * exclusive lock only for a moment at its start and end (9–10 s for `videos` at 1,021,713 rows,
 * docs/benchmarks.md). MySQL 8 chooses its own algorithm; see docs/contract.md, "Upgrading".
 */
export class ExactIdentities1795564800000 implements MigrationInterface {
  name = 'ExactIdentities1795564800000';

  async up(runner: QueryRunner): Promise<void> {
    const collation = await exactCollation(runner);
    await alterIdentities(runner, (nullable) => identityColumn(collation, nullable), collation);
  }

  async down(runner: QueryRunner): Promise<void> {
    await alterIdentities(
      runner,
      (nullable) =>
        `VARCHAR(128) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci ${nullable ? 'NULL' : 'NOT NULL'}`,
      await exactCollation(runner),
    );
  }
}

async function alterIdentities(
  runner: QueryRunner,
  definition: (nullable: boolean) => string,
  collation: string,
): Promise<void> {
  // MariaDB (the only server with its `nopad` collations) says in place and online; MySQL picks.
  const online = collation === 'utf8mb4_nopad_bin' ? ', ALGORITHM=NOCOPY, LOCK=NONE' : '';
  for (const [table, columns] of Object.entries(IDENTITY_COLUMNS)) {
    const changes = columns.map(([column, nullable]) => `MODIFY ${column} ${definition(nullable)}`);
    await runner.query(`ALTER TABLE ${table} ${changes.join(', ')}${online}`);
  }
}
