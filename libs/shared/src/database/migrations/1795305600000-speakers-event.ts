import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The people in a video and the event or channel it belongs to (docs/contract.md §2): searchable
 * and shown in every search item. Rows imported before this migration have none (an empty list,
 * no event) until they are imported again.
 */
export class SpeakersEvent1795305600000 implements MigrationInterface {
  name = 'SpeakersEvent1795305600000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE videos
        ADD COLUMN speakers JSON NOT NULL DEFAULT ('[]') AFTER tags,
        ADD COLUMN event VARCHAR(512) NULL AFTER speakers`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE videos DROP COLUMN event, DROP COLUMN speakers');
  }
}
