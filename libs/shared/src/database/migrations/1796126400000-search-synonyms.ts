import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The search's synonym set (docs/contract.md §7.3): one row, replaced whole by each save, with a
 * count of saves and the digest of its rules for entity tags. It starts empty, at version 0.
 * `MEDIUMTEXT` holds the largest set the API takes (its body is at most 8 MiB).
 */
export class SearchSynonyms1796126400000 implements MigrationInterface {
  name = 'SearchSynonyms1796126400000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE search_synonyms (
        id TINYINT UNSIGNED NOT NULL,
        version INT UNSIGNED NOT NULL,
        digest CHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
        rules MEDIUMTEXT NOT NULL,
        updated_at DATETIME(3) NOT NULL,
        PRIMARY KEY (id)
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    // SHA-256 of `[]`: the empty set, as the repository writes it.
    await runner.query(
      `INSERT INTO search_synonyms (id, version, digest, rules, updated_at)
       VALUES (1, 0, '4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945', '[]', UTC_TIMESTAMP(3))`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE search_synonyms');
  }
}
