import { randomUUID } from 'node:crypto';
import { mediaPrefix } from '@app/shared/storage/storage.service';
import { waitFor } from './processes';
import type { TestContext } from './test-context';

export interface SeedOptions {
  authorId?: string;
  title?: (index: number) => string;
  description?: (index: number) => string;
  objectsPerVideo?: number;
  publishedAt?: (index: number) => Date;
  speakers?: (index: number) => string[];
  event?: (index: number) => string;
  tags?: (index: number) => string[];
  language?: (index: number) => string;
}

/** Writes videos the way the import does: rows, media objects and index documents. Returns their ids. */
export async function seedVideos(
  context: TestContext,
  count: number,
  options: SeedOptions = {},
): Promise<string[]> {
  const contents = Array.from({ length: count }, (_, index) => ({
    id: randomUUID(),
    authorId: options.authorId ?? 'author-1',
    title: options.title?.(index) ?? `Seeded video ${index}`,
    description: options.description?.(index) ?? 'A video written by the test seed.',
    tags: options.tags?.(index) ?? ['seed'],
    speakers: options.speakers?.(index) ?? [],
    event: options.event?.(index) ?? null,
    publishedAt: options.publishedAt?.(index) ?? new Date(Date.UTC(2024, 0, 1 + index)),
    language: options.language?.(index) ?? 'eng',
  }));
  await context.videos.upsertContent(contents);
  const objects = options.objectsPerVideo ?? 2;
  const uploads = contents.flatMap((video) =>
    Array.from({ length: objects }, (_, n) => `${mediaPrefix(video.id)}file-${n}.bin`),
  );
  for (let i = 0; i < uploads.length; i += 50) {
    await Promise.all(
      uploads.slice(i, i + 50).map((key) => context.storage.putObject(key, 'x', 'application/octet-stream')),
    );
  }
  await context.indexWriter.indexVideos(await context.videos.findByIds(contents.map((c) => c.id)));
  await context.indexAdmin.refresh();
  return contents.map((c) => c.id);
}

/** What is left of a video in every store. */
export async function remains(context: TestContext, id: string) {
  const rows: { state: string }[] = await context.dataSource.query('SELECT state FROM videos WHERE id = ?', [
    id,
  ]);
  const audits: { reason: string; requested_by: string | null; objects_deleted: number }[] =
    await context.dataSource.query(
      'SELECT reason, requested_by, objects_deleted FROM deletion_audit WHERE video_id = ?',
      [id],
    );
  const document = await context.indexInventory.document(id);
  return {
    row: rows[0] ?? null,
    audits,
    objects: await context.storage.countKeys(mediaPrefix(id)),
    document,
  };
}

/** Waits until none of these videos has a row left (every deletion finished). */
export async function waitUntilGone(context: TestContext, ids: string[], timeoutMs = 60_000): Promise<void> {
  await waitFor(
    `${ids.length} deletions`,
    async () => {
      const rows: unknown[] = await context.dataSource.query('SELECT id FROM videos WHERE id IN (?)', [ids]);
      return rows.length === 0 ? true : undefined;
    },
    { timeoutMs, intervalMs: 250 },
  );
}

/** The numbers 0–999,999 as a derived table `numbers(n)`: a cross join of digits, on MariaDB and MySQL alike. */
const NUMBERS = (() => {
  const digits = `(SELECT 0 AS d ${Array.from({ length: 9 }, (_, n) => `UNION ALL SELECT ${n + 1}`).join(' ')})`;
  const names = ['a', 'b', 'c', 'd', 'e', 'f'];
  return `(SELECT ${names.map((name, n) => `${name}.d * ${10 ** n}`).join(' + ')} AS n
     FROM ${names.map((name) => `${digits} ${name}`).join(', ')}) numbers`;
})();

/**
 * Puts `count` soft-deleted videos straight into an author's trash with one `INSERT … SELECT`
 * (no media, no index documents): 100,000 rows in seconds, where the import's path would take
 * minutes. Each is as a soft delete by the author leaves it: deleted a second apart, the newest a
 * second before `deletedBefore` (default: now), purged 30 days after its deletion. Returns their ids.
 */
export async function seedTrash(
  context: TestContext,
  authorId: string,
  count: number,
  deletedBefore = new Date(),
): Promise<string[]> {
  if (count > 1_000_000) throw new Error('seedTrash writes at most 1,000,000 videos');
  // One random tail per call, the row's number in front: ids unique across calls, valid UUIDs (v4).
  const tail = randomUUID().slice(8);
  await context.dataSource.query(
    `INSERT INTO videos
       (id, author_id, title, description, tags, state, deleted_at, purge_at, deletion_reason,
        deletion_requested_by, created_at, updated_at)
     SELECT CONCAT(LOWER(LPAD(HEX(n), 8, '0')), ?), ?, CONCAT('Trashed video ', n), 'Seeded straight into the trash.',
       '[]', 'soft_deleted', deleted, deleted + INTERVAL 30 DAY, 'retention', ?, ?, ?
     FROM (SELECT n, ? - INTERVAL (? - n) SECOND AS deleted FROM ${NUMBERS} WHERE n < ?) trash`,
    [tail, authorId, authorId, deletedBefore, deletedBefore, deletedBefore, count, count],
  );
  return Array.from({ length: count }, (_, n) => `${n.toString(16).padStart(8, '0')}${tail}`);
}

/** Videos per chunk of `seedMany`: one multi-row statement, one bulk index request, its uploads. */
const SEED_CHUNK = 1_000;

/**
 * `seedVideos` for thousands: a chunk at a time (each one multi-row upsert, one bulk index request),
 * so a chaos scenario seeds 20,000 videos in seconds rather than building one huge statement.
 */
export async function seedMany(
  context: TestContext,
  count: number,
  options: SeedOptions = {},
): Promise<string[]> {
  const ids: string[] = [];
  for (let from = 0; from < count; from += SEED_CHUNK) {
    const chunk = Math.min(SEED_CHUNK, count - from);
    ids.push(
      ...(await seedVideos(context, chunk, {
        ...options,
        title: (index) => options.title?.(from + index) ?? `Seeded video ${from + index}`,
      })),
    );
  }
  return ids;
}
