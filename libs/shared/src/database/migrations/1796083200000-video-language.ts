import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The language of a video's title and description, an ISO 639-3 code (docs/contract.md §2). Added
 * in place without rebuilding the table (instant on MariaDB 10.4+ and MySQL 8.0.29+), every
 * existing row `und` (undetermined): detecting the language of each row here would hold the
 * upgrade for as long as reading every description takes. `npm run cli -- languages` detects
 * them afterwards, and an import of the catalogue's file gives them its records' (UPGRADING.md).
 */
export class VideoLanguage1796083200000 implements MigrationInterface {
  name = 'VideoLanguage1796083200000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE videos
        ADD COLUMN language CHAR(3) CHARACTER SET ascii COLLATE ascii_bin NOT NULL DEFAULT 'und' AFTER published_at,
        ALGORITHM=INSTANT`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE videos DROP COLUMN language');
  }
}
