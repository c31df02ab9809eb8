import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { createConnection, type Connection } from 'mysql2/promise';
import { DataSource } from 'typeorm';
import { dataSourceOptions, ensureDatabase, migrate, MIGRATIONS } from '@app/shared/data-source';
import { OutboxRetention1795651200000 } from '@app/shared/database/migrations/1795651200000-outbox-retention';
import { VideoLanguage1796083200000 } from '@app/shared/database/migrations/1796083200000-video-language';
import { receiverKey } from '@app/shared/net/receiver-url';
import { rulesDigest } from '@app/shared/synonyms/synonym-set.repository';

const url = new URL(process.env.DATABASE_URL!);
/** A database of its own beside the test database (each checkout's and each worker's apart). */
const DATABASE = `${url.pathname.slice(1)}_migration`;
url.pathname = `/${DATABASE}`;
const DATABASE_URL = url.toString();

describe('migrations', () => {
  let admin: Connection;

  beforeAll(async () => {
    admin = await createConnection({
      host: url.hostname,
      port: Number(url.port || 3306),
      user: url.username || 'root',
    });
    await admin.query(`DROP DATABASE IF EXISTS ${DATABASE}`);
  });

  afterAll(async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${DATABASE}`);
    await admin.end();
  });

  async function schema(): Promise<string[]> {
    const [rows] = await admin.query(
      `SELECT CONCAT(table_name, '.', index_name, '.', column_name) AS part FROM information_schema.statistics
       WHERE table_schema = ? ORDER BY table_name, index_name, seq_in_index`,
      [DATABASE],
    );
    return (rows as { part: string }[]).map((row) => row.part);
  }

  it('creates the database and applies every migration on an empty server', async () => {
    const applied = await migrate({ DATABASE_URL });
    expect(applied.length).toBeGreaterThan(0);
    const parts = await schema();
    // The indexes that make due purges and stuck deletions cheap to find.
    expect(parts).toEqual(
      expect.arrayContaining([
        'videos.idx_videos_state_purge_at.state',
        'videos.idx_videos_state_purge_at.purge_at',
        'videos.idx_videos_state_updated_at.updated_at',
        'deletion_audit.uq_deletion_audit_video_id.video_id',
        // An author's trash in deletion order, and one unfinished erasure per author.
        'videos.idx_videos_author_state_deleted_at.deleted_at',
        'erasures.uq_erasures_active_author.active_author',
        // One running trash operation per author; the sweep's running and expired ones.
        'trash_operations.uq_trash_operations_active_author.active_author',
        'trash_operations.idx_trash_operations_state.state',
        'trash_operations.idx_trash_operations_state.completed_at',
        // What a search checks of each hit, read without the row.
        'videos.idx_videos_id_state_version.id',
        'videos.idx_videos_id_state_version.state',
        'videos.idx_videos_id_state_version.version',
        // The outbox's retention: an author's events, erased ones, settled deliveries by age.
        'outbox_events.idx_outbox_events_author.author_id',
        'outbox_events.idx_outbox_events_author.seq',
        'outbox_events.idx_outbox_events_erased.erased_at',
        'webhook_deliveries.idx_webhook_deliveries_settled.state',
        'webhook_deliveries.idx_webhook_deliveries_settled.last_attempt_at',
        // The newest purge and those since a moment, without reading every audit record.
        'deletion_audit.idx_deletion_audit_purged_at.purged_at',
      ]),
    );
    // MAX(purged_at) is read off the index's end, not found by a scan of the records.
    const [plan] = await admin.query(`EXPLAIN SELECT MAX(purged_at) FROM ${DATABASE}.deletion_audit`);
    expect((plan as { Extra: string | null }[])[0]!.Extra).toMatch(/optimized away|No matching min\/max row/);
  }, 60_000);

  it('stores video ids as bytes (ascii_bin), so key comparisons skip the Unicode collation', async () => {
    const [rows] = await admin.query(
      `SELECT CONCAT(table_name, '.', column_name, '=', collation_name) AS col FROM information_schema.columns
       WHERE table_schema = ? AND column_name IN ('id', 'video_id') AND data_type = 'char' ORDER BY col`,
      [DATABASE],
    );
    expect((rows as { col: string }[]).map((row) => row.col)).toEqual([
      'deletion_audit.video_id=ascii_bin',
      'erasures.id=ascii_bin',
      'outbox_events.id=ascii_bin',
      'trash_operations.id=ascii_bin',
      'videos.id=ascii_bin',
    ]);
  });

  it('compares every identity column byte for byte: no case, accent or padding folding', async () => {
    const [rows] = await admin.query(
      `SELECT CONCAT(table_name, '.', column_name, '=', collation_name) AS col FROM information_schema.columns
       WHERE table_schema = ? AND column_name IN ('author_id', 'requested_by', 'deletion_requested_by', 'active_author')
       ORDER BY col`,
      [DATABASE],
    );
    const columns = (rows as { col: string }[]).map((row) => row.col.split('=')[0]);
    expect(columns).toEqual([
      'deletion_audit.author_id',
      'deletion_audit.requested_by',
      'erasures.active_author',
      'erasures.author_id',
      'erasures.requested_by',
      'outbox_events.author_id',
      'trash_operations.active_author',
      'trash_operations.author_id',
      'trash_operations.requested_by',
      'videos.author_id',
      'videos.deletion_requested_by',
    ]);
    for (const row of rows as { col: string }[]) expect(row.col).toMatch(/=utf8mb4_(nopad_bin|0900_bin)$/);
    // What the collation means, on this server: look-alikes are different values, even in a unique key.
    const [erasures] = await admin.query(
      `INSERT INTO ${DATABASE}.erasures (id, author_id, mode, requested_by, state, total, active_author, started_at, updated_at)
       VALUES ?`,
      [
        ['acc-x', 'ACC-X', 'acc-x ', 'acc-äx', 'acc-\u200bx', 'cafe\u0301', 'caf\u00e9'].map((author, n) => [
          `00000000-0000-4000-8000-00000000000${n}`,
          author,
          'soft',
          author,
          'running',
          0,
          author,
          new Date(),
          new Date(),
        ]),
      ],
    );
    expect((erasures as { affectedRows: number }).affectedRows).toBe(7);
    const [matches] = await admin.query(
      `SELECT COUNT(*) AS n FROM ${DATABASE}.erasures WHERE active_author = ?`,
      ['acc-x'],
    );
    expect(Number((matches as { n: number }[])[0]!.n)).toBe(1);
    await admin.query(`DELETE FROM ${DATABASE}.erasures`);
  });

  it('matches an identity in MySQL exactly when JavaScript says the strings are equal (generated look-alikes)', async () => {
    await admin.query(
      `INSERT INTO ${DATABASE}.erasures (id, author_id, mode, requested_by, state, total, active_author, started_at, updated_at)
       VALUES ('00000000-0000-4000-8000-000000000000', 'x', 'soft', 'x', 'running', 0, NULL, NOW(), NOW())`,
    );
    // A base id and a look-alike made from it: case, padding, accents, normal forms, invisible characters.
    const variants = fc.constantFrom<(text: string) => string>(
      (text) => text.toUpperCase(),
      (text) => text.toLowerCase(),
      (text) => `${text} `,
      (text) => ` ${text}`,
      (text) => `${text}\t`,
      (text) => text.normalize('NFD'),
      (text) => text.normalize('NFC'),
      (text) => text.normalize('NFKC'),
      (text) => `${text}\u200b`,
      (text) => text.replace(/a/g, 'ä').replace(/e/g, 'é'),
      (text) => text,
    );
    const base = fc
      .string({ unit: 'grapheme', minLength: 1, maxLength: 20 })
      .filter((text) => text.length <= 100);
    await fc.assert(
      fc.asyncProperty(base, variants, async (stored, variant) => {
        const asked = variant(stored);
        await admin.query(`UPDATE ${DATABASE}.erasures SET active_author = ?, author_id = ?`, [
          stored,
          stored,
        ]);
        const [rows] = await admin.query(
          `SELECT COUNT(*) AS n FROM ${DATABASE}.erasures WHERE active_author = ? AND author_id = ?`,
          [asked, asked],
        );
        expect(Number((rows as { n: number }[])[0]!.n)).toBe(asked === stored ? 1 : 0);
      }),
      { numRuns: 300 },
    );
    await admin.query(`DELETE FROM ${DATABASE}.erasures`);
  }, 60_000);

  it('starts the synonym set empty, at version 0, with the digest the repository gives `[]`', async () => {
    const [rows] = await admin.query(`SELECT id, version, digest, rules FROM ${DATABASE}.search_synonyms`);
    expect(rows).toEqual([{ id: 1, version: 0, digest: rulesDigest('[]'), rules: '[]' }]);
  });

  it('is idempotent: a second run applies nothing and changes nothing', async () => {
    const before = await schema();
    expect(await migrate({ DATABASE_URL })).toEqual([]);
    expect(await schema()).toEqual(before);
  }, 60_000);

  it("rewrites deliveries recorded with a receiver's credentials and query token, keeping them matched", async () => {
    const configured = 'https://hooks:s3cret@receiver.example/in?token=t0ken';
    const plain = 'https://other.example/in';
    const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
    await admin.query(
      `INSERT INTO ${DATABASE}.webhook_deliveries (event_id, endpoint, endpoint_key, subject, next_attempt_at)
       VALUES ?`,
      [
        [
          ['00000000-0000-4000-8000-000000000001', configured, sha256(configured), 'v', new Date()],
          ['00000000-0000-4000-8000-000000000002', configured, sha256(configured), 'v', new Date()],
          ['00000000-0000-4000-8000-000000000001', plain, sha256(plain), 'v', new Date()],
        ],
      ],
    );
    // Applied again, as on a database whose deliveries were recorded before it.
    await admin.query(`DELETE FROM ${DATABASE}.migrations WHERE name = 'WebhookEndpointsShown1795737600000'`);
    expect(await migrate({ DATABASE_URL })).toEqual(['WebhookEndpointsShown1795737600000']);
    const [rows] = await admin.query(
      `SELECT endpoint, endpoint_key AS \`key\` FROM ${DATABASE}.webhook_deliveries ORDER BY id`,
    );
    expect(rows).toEqual([
      { endpoint: 'https://receiver.example/in?token=***', key: receiverKey(configured) },
      { endpoint: 'https://receiver.example/in?token=***', key: receiverKey(configured) },
      { endpoint: plain, key: sha256(plain) },
    ]);
  }, 60_000);
});

/**
 * A fresh database (the test database's name and `suffix`) with every migration but `pending` applied: its tables as the release
 * before that migration left them. Dropped by `drop`.
 */
async function databaseBefore(
  suffix: string,
  pending: (typeof MIGRATIONS)[number],
): Promise<{ name: string; url: string; dataSource: DataSource; drop(): Promise<void> }> {
  const url = new URL(process.env.DATABASE_URL!);
  // Beside the test database, so that each checkout's and each jest worker's stay apart.
  const name = `${url.pathname.slice(1)}_${suffix}`;
  url.pathname = `/${name}`;
  const server = await createConnection({
    host: url.hostname,
    port: Number(url.port || 3306),
    user: url.username || 'root',
  });
  await server.query(`DROP DATABASE IF EXISTS ${name}`);
  await server.end();
  await ensureDatabase(url.toString());
  const dataSource = new DataSource({
    ...dataSourceOptions({ DATABASE_URL: url.toString() }),
    migrations: MIGRATIONS.filter((migration) => migration !== pending),
  });
  await dataSource.initialize();
  await dataSource.runMigrations({ transaction: 'each' });
  return {
    name,
    url: url.toString(),
    dataSource,
    async drop() {
      await dataSource.query(`DROP DATABASE IF EXISTS ${name}`);
      await dataSource.destroy();
    },
  };
}

describe('migration OutboxRetention1795651200000 on an outbox recorded before it', () => {
  let before: Awaited<ReturnType<typeof databaseBefore>> | undefined;

  afterAll(() => before?.drop());

  it("backfills each event's author from its body, and marks those of authors whose erasure completed", async () => {
    before = await databaseBefore('migration_backfill', OutboxRetention1795651200000);
    const { dataSource } = before;
    const completedAt = new Date('2026-05-01T00:00:00Z');
    const event = (n: number, authorId: string, at: Date) => [
      `00000000-0000-4000-8000-00000000000${n}`,
      'video.restored',
      `video-${n}`,
      JSON.stringify({ type: 'video.restored', data: { videoId: `video-${n}`, authorId } }),
      at,
    ];
    await dataSource.query('INSERT INTO outbox_events (id, type, subject, body, occurred_at) VALUES ?', [
      [
        event(1, 'gone', new Date(completedAt.getTime() - 1_000)),
        event(2, 'Gone', new Date(completedAt.getTime() - 1_000)),
        event(3, 'gone', new Date(completedAt.getTime() + 1_000)),
        event(4, 'kept', completedAt),
      ],
    ]);
    await dataSource.query(
      `INSERT INTO erasures (id, author_id, mode, requested_by, state, total, done, started_at, completed_at, updated_at)
       VALUES ('10000000-0000-4000-8000-000000000000', 'gone', 'permanent', 'gone', 'completed', 0, 0, ?, ?, ?)`,
      [completedAt, completedAt, completedAt],
    );

    expect(await migrate({ DATABASE_URL: before.url })).toEqual(['OutboxRetention1795651200000']);
    const rows: { subject: string; author_id: string; erased_at: Date | null }[] = await dataSource.query(
      'SELECT subject, author_id, erased_at FROM outbox_events ORDER BY seq',
    );
    // Only what was recorded up to the erasure's completion, and only that author, byte for byte.
    expect(rows).toEqual([
      { subject: 'video-1', author_id: 'gone', erased_at: completedAt },
      { subject: 'video-2', author_id: 'Gone', erased_at: null },
      { subject: 'video-3', author_id: 'gone', erased_at: null },
      { subject: 'video-4', author_id: 'kept', erased_at: null },
    ]);
  }, 60_000);
});

describe('migration VideoLanguage1796083200000 on videos stored before it', () => {
  let before: Awaited<ReturnType<typeof databaseBefore>> | undefined;

  afterAll(() => before?.drop());

  it("gives every video stored before it the language 'und' (undetermined), in three ASCII bytes", async () => {
    before = await databaseBefore('migration_language', VideoLanguage1796083200000);
    const { dataSource } = before;
    await dataSource.query(
      `INSERT INTO videos (id, author_id, title, description, tags, updated_at)
       VALUES ('00000000-0000-4000-8000-000000000001', 'a', 'Before', '', '[]', NOW(3))`,
    );

    expect(await migrate({ DATABASE_URL: before.url })).toEqual(['VideoLanguage1796083200000']);
    expect(await dataSource.query('SELECT id, language FROM videos')).toEqual([
      { id: '00000000-0000-4000-8000-000000000001', language: 'und' },
    ]);
    const [column] = await dataSource.query<{ type: string; nullable: string; collation: string }[]>(
      `SELECT column_type AS type, is_nullable AS nullable, collation_name AS collation FROM information_schema.columns
       WHERE table_schema = ? AND table_name = 'videos' AND column_name = 'language'`,
      [before.name],
    );
    expect(column).toEqual({ type: 'char(3)', nullable: 'NO', collation: 'ascii_bin' });
  }, 60_000);
});
