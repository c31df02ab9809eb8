import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The index every search reads instead of the rows: each page's ids, with their state and version
 * (`VideoRepository.findActiveVersions`). The rows hold whole descriptions, 1.26 GB at a million
 * videos, more than a default buffer pool (128 MB) keeps in memory; this index is 59 MB there. A
 * check of 20 ids cost MySQL 0.6–1.0 ms of CPU through the rows and 0.19–0.23 ms through this index
 * (docs/benchmarking.md). Built in place, 8 s at a million videos; writes go on meanwhile.
 */
export class SearchCheckIndex1795478400000 implements MigrationInterface {
  name = 'SearchCheckIndex1795478400000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      'ALTER TABLE videos ADD KEY idx_videos_id_state_version (id, state, version), ALGORITHM=INPLACE, LOCK=NONE',
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE videos DROP KEY idx_videos_id_state_version');
  }
}
