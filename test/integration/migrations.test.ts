import { createHash } from 'node:crypto';
import { createConnection, type Connection } from 'mysql2/promise';
import { migrate } from '@app/shared/database/data-source';
import { receiverKey } from '@app/shared/net/receiver-url';

const DATABASE = 'videos_migration_test';
const url = new URL(process.env.DATABASE_URL!);
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
        // What a search checks of each hit, read without the row.
        'videos.idx_videos_id_state_version.id',
        'videos.idx_videos_id_state_version.state',
        'videos.idx_videos_id_state_version.version',
      ]),
    );
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
      'videos.id=ascii_bin',
    ]);
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
    await admin.query(`DELETE FROM ${DATABASE}.migrations WHERE name = 'WebhookEndpointsShown1795564800000'`);
    expect(await migrate({ DATABASE_URL })).toEqual(['WebhookEndpointsShown1795564800000']);
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
