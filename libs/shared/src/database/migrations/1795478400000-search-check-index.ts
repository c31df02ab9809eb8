import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The index every search reads instead of the rows: each page's ids, with their state and version
 * (`VideoRepository.findActiveVersions`). The rows hold whole descriptions, more than a default
 * buffer pool keeps in memory on a large catalogue, while this index stays small, so a page check
 * reads memory rather than disk (docs/benchmarks.md). Built in place; writes go on meanwhile.
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
