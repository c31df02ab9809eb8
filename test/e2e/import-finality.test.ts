import { mediaPrefix } from '@app/shared/storage/storage.service';
import { bootSystem } from '../support/boot';
import { followErasure } from '../support/erasures';
import { importSample } from '../support/sample-import';
import { waitUntilGone } from '../support/seed';
import { call, token } from '../support/system';

const RECORDS = 300;
const admin = token('finality-admin', ['admin']);

interface Row {
  id: string;
  author_id: string;
  title: string;
  state: string;
  version: number;
}

/**
 * A deletion is final (docs/contract.md §10.5): importing the same file again after purges and an
 * author's erasure brings nothing back — no row, no media object, no index document, no search hit —
 * and a soft-deleted video stays soft-deleted.
 */
describe('re-importing never brings a deleted video back (§9, §10.5)', () => {
  const boot = bootSystem({ system: { env: { PURGE_SWEEP_INTERVAL_MS: '1000', WORKER_CONCURRENCY: '8' } } });

  const importRecords = async () => {
    const result = await importSample(RECORDS, 100);
    expect(result).toMatchObject({ code: 0 });
    return result.output;
  };
  const rows = async (): Promise<Row[]> =>
    boot.context.dataSource.query('SELECT id, author_id, title, state, version FROM videos ORDER BY id');
  const search = (q: string) =>
    call<{ items: { id: string }[] }>(
      'GET',
      `${boot.system.api}/api/videos/search?q=${encodeURIComponent(q)}&limit=100`,
      admin,
    );

  it('skips purged and erased videos, says so, and keeps a soft-deleted one in the trash', async () => {
    expect(await importRecords()).toMatch(
      new RegExp(
        `Imported ${RECORDS} of ${RECORDS} records.* ${RECORDS} documents indexed, 0 refused .* 0 skipped: deleted`,
      ),
    );
    const imported = await rows();
    expect(imported).toHaveLength(RECORDS);

    // The author with the most videos is erased; three other videos are purged; one is soft-deleted.
    const byAuthor = new Map<string, Row[]>();
    for (const row of imported) byAuthor.set(row.author_id, [...(byAuthor.get(row.author_id) ?? []), row]);
    const [erasedAuthor, erasedVideos] = [...byAuthor].sort((a, b) => b[1].length - a[1].length)[0]!;
    expect(erasedVideos.length).toBeGreaterThan(1);
    const others = imported.filter((row) => row.author_id !== erasedAuthor);
    const purged = others.slice(0, 3);
    const trashed = others[3]!;
    const kept = others.slice(4);

    for (const video of purged) {
      expect(
        (await call('DELETE', `${boot.system.api}/api/videos/${video.id}?permanent=true`, admin)).status,
      ).toBe(200);
    }
    expect((await call('DELETE', `${boot.system.api}/api/videos/${trashed.id}`, admin)).status).toBe(200);
    const erasure = await call<{ erasureId: string }>(
      'DELETE',
      `${boot.system.api}/api/authors/${encodeURIComponent(erasedAuthor)}/videos?permanent=true`,
      admin,
    );
    expect(erasure.status).toBe(202);
    await followErasure(boot.system.api, erasure.body.erasureId, admin, { timeoutMs: 60_000 });
    const gone = [...purged, ...erasedVideos];
    await waitUntilGone(
      boot.context,
      gone.map((video) => video.id),
    );

    const output = await importRecords();
    expect(output).toMatch(new RegExp(`Imported ${RECORDS - gone.length} of ${RECORDS} records`));
    expect(output).toMatch(new RegExp(` ${gone.length} skipped: deleted`));
    expect(output).toMatch(/ 0 refused /);
    await boot.context.indexAdmin.refresh();

    // Rows: the gone stay gone, the trashed stays trashed (its text may change, never its state).
    const after = new Map((await rows()).map((row) => [row.id, row]));
    for (const video of gone) expect(after.has(video.id)).toBe(false);
    expect(after.get(trashed.id)?.state).toBe('soft_deleted');
    for (const video of kept) expect(after.get(video.id)?.state).toBe('active');
    expect(after.size).toBe(RECORDS - gone.length);

    // Objects and documents.
    const keys = await boot.context.allMediaKeys();
    const documents = new Set(await boot.context.indexedIds());
    for (const video of gone) {
      expect(keys.filter((key) => key.startsWith(mediaPrefix(video.id)))).toEqual([]);
      expect(documents.has(video.id)).toBe(false);
    }
    for (const video of kept) expect(documents.has(video.id)).toBe(true);

    // Searches: a title search finds a kept video, never a gone or trashed one.
    for (const video of [...gone, trashed]) {
      const found = await search(video.title);
      expect(found.status).toBe(200);
      expect(found.body.items.map((item) => item.id)).not.toContain(video.id);
    }
    const keptFound = await search(kept[0]!.title);
    expect(keptFound.body.items.map((item) => item.id)).toContain(kept[0]!.id);

    // Receipts still tell the deletions, from the audit records.
    for (const video of gone) {
      const receipt = await call<{ state: string; reason: string }>(
        'GET',
        `${boot.system.api}/api/videos/${video.id}/deletion`,
        admin,
      );
      expect([video.id, receipt.status, receipt.body.state]).toEqual([video.id, 200, 'deleted']);
    }
    const trashedReceipt = await call<{ state: string }>(
      'GET',
      `${boot.system.api}/api/videos/${trashed.id}/deletion`,
      admin,
    );
    expect(trashedReceipt.body.state).toBe('soft_deleted');
  }, 240_000);
});
