import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Init1763683200000 implements MigrationInterface {
  name = 'Init1763683200000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE videos (
        id CHAR(36) NOT NULL,
        author_id VARCHAR(128) NOT NULL,
        title VARCHAR(512) NOT NULL,
        description MEDIUMTEXT NOT NULL,
        tags JSON NOT NULL,
        published_at DATETIME(3) NULL,
        state VARCHAR(16) NOT NULL DEFAULT 'active',
        deleted_at DATETIME(3) NULL,
        purge_at DATETIME(3) NULL,
        version INT UNSIGNED NOT NULL DEFAULT 1,
        created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
        updated_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
        PRIMARY KEY (id),
        KEY idx_videos_state_purge_at (state, purge_at),
        KEY idx_videos_state_updated_at (state, updated_at),
        KEY idx_videos_author_id (author_id)
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await runner.query(`
      CREATE TABLE deletion_audit (
        id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
        video_id CHAR(36) NOT NULL,
        author_id VARCHAR(128) NOT NULL,
        reason VARCHAR(16) NOT NULL,
        requested_by VARCHAR(128) NULL,
        deleted_at DATETIME(3) NULL,
        objects_deleted INT UNSIGNED NOT NULL,
        purged_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
        PRIMARY KEY (id),
        UNIQUE KEY uq_deletion_audit_video_id (video_id)
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE deletion_audit');
    await runner.query('DROP TABLE videos');
  }
}
