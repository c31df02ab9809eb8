/**
 * The exact-identities migration (ExactIdentities1795564800000) on a catalogue of the bench's size,
 * with an application's reads and writes going on: how long each table takes, and what the
 * concurrent queries saw during it against the same load without a migration (their own baseline).
 *
 * It runs in a scratch database of its own (`<bench database>_migration`), created with every
 * migration, taken back to the old collation, then filled with generated rows straight from MariaDB's
 * sequence engine (the row contents do not matter to a collation change; their number and the indexes
 * do), so it needs neither the sample nor the index.
 */
import { createPool } from 'mysql2/promise';
import { DataSource } from 'typeorm';
import { dataSourceOptions, migrate } from '@app/shared/data-source';
import { ExactIdentities1795564800000 } from '@app/shared/database/migrations/1795564800000-exact-identities';
import { SAMPLE_VIDEOS } from './lib/bench-data';
import { atMost, count, ms, rate } from './lib/figures';
import type { Step } from './lib/step';
import { callsUntil, closedLoop, summarize, type RunStats } from './lib/stats';

export interface IdentityMigrationBench {
  videos: number;
  /** Seconds the migration took, all tables together. */
  seconds: number;
  /** The same load right after the migration, without one, for as long as the migration took. */
  before: { reads: RunStats; writes: RunStats };
  during: { reads: RunStats; writes: RunStats };
  /** The slowest single read and write while the migration ran, ms. */
  worstDuring: { read: number; write: number };
}

const AUTHORS = 20_000;

export const migrationStep: Step<{ identityMigration: IdentityMigrationBench }> = {
  name: 'migration',
  measures:
    'the exact-identities migration on a scratch database of the largest size, under concurrent reads and writes',
  baseline: 'the same reads and writes for as long, without a migration',
  data: 'own',
  async run({ config, sizes, log }) {
    const videos = Math.max(...sizes) + SAMPLE_VIDEOS;
    const url = new URL(config.DATABASE_URL);
    url.pathname = `${url.pathname}_migration`;
    const scratch = { DATABASE_URL: url.toString() };
    const pool = createPool({ uri: scratch.DATABASE_URL, connectionLimit: 8, charset: 'utf8mb4_unicode_ci' });
    const dataSource = new DataSource(dataSourceOptions(scratch));
    try {
      await migrate(scratch);
      await dataSource.initialize();
      const migration = new ExactIdentities1795564800000();
      const runner = dataSource.createQueryRunner();
      await migration.down(runner);
      await pool.query('TRUNCATE TABLE videos');
      log(`migration bench: filling ${count(videos)} rows`);
      await pool.query(
        `INSERT INTO videos (id, author_id, title, description, tags, published_at, deletion_requested_by, state, deleted_at)
         SELECT LOWER(CONCAT(LPAD(HEX(seq), 8, '0'), '-0000-4000-8000-000000000000')), CONCAT('author-', seq % ${AUTHORS}),
           CONCAT('Generated video ', seq), REPEAT('Words of a description. ', 40), '[]', NOW(3) - INTERVAL seq MINUTE,
           IF(seq % 10 = 0, CONCAT('author-', seq % ${AUTHORS}), NULL), IF(seq % 10 = 0, 'soft_deleted', 'active'),
           IF(seq % 10 = 0, NOW(3) - INTERVAL seq SECOND, NULL)
         FROM seq_1_to_${videos}`,
      );

      // What an application does meanwhile: an author's trash (the index being rebuilt), a search's
      // check of a page of ids, and writes to rows (a soft delete's update).
      const randomId = () =>
        `${(1 + Math.floor(Math.random() * videos)).toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`;
      const read = async () => {
        await pool.query(
          `SELECT id FROM videos WHERE author_id = ? AND state = 'soft_deleted' ORDER BY deleted_at DESC LIMIT 20`,
          [`author-${Math.floor(Math.random() * AUTHORS)}`],
        );
        await pool.query('SELECT id, state, version FROM videos WHERE id IN (?)', [
          Array.from({ length: 20 }, randomId),
        ]);
      };
      const write = async () => {
        await pool.query('UPDATE videos SET version = version + 1, updated_at = NOW(3) WHERE id = ?', [
          randomId(),
        ]);
      };

      log('migration bench: running the migration under load');
      const started = performance.now();
      const migrating = migration.up(runner).then(() => (performance.now() - started) / 1000);
      const [seconds, readLatencies, writeLatencies] = await Promise.all([
        migrating,
        callsUntil(migrating, read, { concurrency: 2 }),
        callsUntil(migrating, write),
      ]);
      await runner.release();

      log('migration bench: the same load without a migration, as long as it took');
      const durationMs = Math.max(seconds * 1000, 5_000);
      const [beforeReads, beforeWrites] = await Promise.all([
        closedLoop(read, { concurrency: 2, durationMs }),
        closedLoop(write, { concurrency: 1, durationMs }),
      ]);
      return {
        identityMigration: {
          videos,
          seconds,
          before: { reads: beforeReads, writes: beforeWrites },
          during: { reads: summarize(readLatencies, seconds), writes: summarize(writeLatencies, seconds) },
          worstDuring: { read: Math.max(0, ...readLatencies), write: Math.max(0, ...writeLatencies) },
        },
      };
    } finally {
      if (dataSource.isInitialized) await dataSource.destroy();
      await pool.query(`DROP DATABASE IF EXISTS \`${url.pathname.slice(1)}\``).catch(() => undefined);
      await pool.end();
    }
  },
  report({ identityMigration: migration }) {
    const load = (name: string, s: RunStats) => [name, rate(s.perSecond), ms(s.p50), ms(s.p99), s.requests];
    return {
      tables: [
        {
          title: `Migration to exact identities at ${count(migration.videos)} videos: ${migration.seconds.toFixed(1)} s, under a concurrent load of trash reads, page checks and row updates (worst during it: read ${ms(migration.worstDuring.read)} ms, write ${ms(migration.worstDuring.write)} ms)`,
          header: ['load', 'ops/s', 'p50 ms', 'p99 ms', 'operations'],
          rows: [
            load('reads during the migration', migration.during.reads),
            load('reads without a migration', migration.before.reads),
            load('writes during the migration', migration.during.writes),
            load('writes without a migration', migration.before.writes),
          ],
        },
      ],
      // Reads and writes go on: neither stops for longer than a second at any moment.
      targets: [
        atMost('migration: worst concurrent write, seconds', migration.worstDuring.write / 1000, 1),
        atMost('migration: worst concurrent read, seconds', migration.worstDuring.read / 1000, 1),
      ],
    };
  },
};
