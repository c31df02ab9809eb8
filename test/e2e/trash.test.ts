import { bootSystem } from '../support/boot';
import { waitFor } from '../support/processes';
import { seedVideos } from '../support/seed';
import { call, token } from '../support/system';
import { completeTrashOperation, type TrashOperationAccepted } from '../support/trash-operations';

const DAY = 86_400_000;
const author = token('trash-author');
const stranger = token('trash-stranger');
const admin = token('trash-admin', ['admin']);
const PROBLEM = /^application\/problem\+json/;

interface TrashPage {
  items: { id: string; title: string; deletedAt: string; purgeAt: string }[];
  page: number;
  limit: number;
  total: number;
  totalPages: number;
}
interface Problem {
  errors?: { name: string; reason: string }[];
  detail: string;
}

describe('the trash: GET /api/videos/trash, POST /api/videos/trash/restore, DELETE /api/videos/trash (§10.1)', () => {
  const boot = bootSystem({ system: { env: { PURGE_SWEEP_INTERVAL_MS: '1000', WORKER_CONCURRENCY: '16' } } });

  const trash = (query = '', bearer = author) =>
    call<TrashPage>('GET', `${boot.system.api}/api/videos/trash${query}`, bearer);
  const restoreAll = (query = '', bearer = author) =>
    call<TrashOperationAccepted>('POST', `${boot.system.api}/api/videos/trash/restore${query}`, bearer);
  const emptyAll = (query = '', bearer = author) =>
    call<TrashOperationAccepted>('DELETE', `${boot.system.api}/api/videos/trash${query}`, bearer);
  /** Asks for a trash operation and waits for the worker to complete it. */
  const complete = (kind: 'restore' | 'empty', bearer = author) =>
    completeTrashOperation(boot.system.api, kind, bearer, { timeoutMs: 60_000 });
  const softDelete = (id: string, days: number) =>
    call<{ deletedAt: string; purgeAt: string }>(
      'DELETE',
      `${boot.system.api}/api/videos/${id}?retentionDays=${days}`,
      author,
    );
  const states = async (ids: string[]) => {
    const rows: { id: string; state: string }[] = await boot.context.dataSource.query(
      'SELECT id, state FROM videos WHERE id IN (?)',
      [ids],
    );
    return new Map(rows.map((row) => [row.id, row.state]));
  };
  /** Puts many videos in the trash at once, deleted a second apart, as if each had been soft-deleted. */
  const trashDirectly = (ids: string[]) =>
    boot.context.dataSource.query(
      `UPDATE videos SET state = 'soft_deleted', deleted_at = NOW(3) - INTERVAL FIELD(id, ?) SECOND,
         purge_at = NOW(3) + INTERVAL 30 DAY, deletion_reason = 'retention', deletion_requested_by = author_id,
         version = version + 1
       WHERE id IN (?)`,
      [ids, ids],
    );

  it('answers 401 without a token, before looking at the parameters', async () => {
    for (const answer of [
      // No token: '' sends no Authorization header.
      await trash('?limit=0', ''),
      await restoreAll('?authorId=', ''),
      await emptyAll('', ''),
    ]) {
      expect(answer.status).toBe(401);
      expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
  });

  it('validates page, limit and authorId as search does: 400 problems naming each parameter', async () => {
    const cases: [string, string[]][] = [
      ['?limit=0', ['limit']],
      ['?limit=101', ['limit']],
      ['?page=0&limit=abc', ['page', 'limit']],
      ['?page=1.5', ['page']],
      ['?page=101&limit=100', ['page']],
      [`?authorId=${'a'.repeat(129)}`, ['authorId']],
      ['?authorId=', ['authorId']],
      ['?page=1&page=2', ['page']],
    ];
    for (const [query, names] of cases) {
      const answer = await call<Problem>('GET', `${boot.system.api}/api/videos/trash${query}`, author);
      expect([query, answer.status, answer.headers.get('content-type')]).toEqual([
        query,
        400,
        expect.stringMatching(PROBLEM),
      ]);
      expect(answer.body.errors!.map((error) => error.name).sort()).toEqual(names.sort());
    }
    expect(
      (await call<Problem>('GET', `${boot.system.api}/api/videos/trash?page=101&limit=100`, author)).body
        .detail,
    ).toContain('10000');
    for (const answer of [await restoreAll(`?authorId=${'é'.repeat(129)}`), await emptyAll('?authorId=')]) {
      expect(answer.status).toBe(400);
    }
    // 128 characters, counted as code points, is allowed (and is the caller's own trash only for an admin).
    expect((await trash(`?authorId=${encodeURIComponent('😀'.repeat(128))}`, admin)).status).toBe(200);
  });

  it("refuses another author's trash to anyone but an admin", async () => {
    for (const answer of [
      await trash('?authorId=trash-author', stranger),
      await restoreAll('?authorId=trash-author', stranger),
      await emptyAll('?authorId=trash-author', stranger),
    ]) {
      expect(answer.status).toBe(403);
      expect(answer.headers.get('content-type')).toMatch(PROBLEM);
    }
    expect((await trash('?authorId=trash-author', author)).status).toBe(200);
  });

  it('lists the caller’s soft-deleted videos, most recently deleted first, a page at a time', async () => {
    const ids = await seedVideos(boot.context, 5, {
      authorId: 'trash-author',
      title: (i) => `Trash listing ${i}`,
    });
    await seedVideos(boot.context, 2, { authorId: 'trash-stranger' }).then(([other]) =>
      call('DELETE', `${boot.system.api}/api/videos/${other!}`, stranger),
    );
    const deleted = [];
    for (const [n, id] of ids.slice(0, 3).entries()) {
      const { deletedAt, purgeAt } = (await softDelete(id, n + 1)).body;
      deleted.push({ id, title: `Trash listing ${n}`, deletedAt, purgeAt });
      await new Promise((done) => setTimeout(done, 5));
    }
    const newestFirst = [...deleted].reverse();

    const all = await trash();
    expect(all.status).toBe(200);
    expect(all.body).toEqual({ items: newestFirst, page: 1, limit: 20, total: 3, totalPages: 1 });
    for (const item of all.body.items) {
      const days = deleted.findIndex((d) => d.id === item.id) + 1;
      expect(Date.parse(item.purgeAt) - Date.parse(item.deletedAt)).toBe(days * DAY);
    }
    expect((await trash('?page=2&limit=2')).body).toEqual({
      items: newestFirst.slice(2),
      page: 2,
      limit: 2,
      total: 3,
      totalPages: 2,
    });
    expect((await trash('?page=9&limit=2')).body).toMatchObject({ items: [], total: 3 });
    expect((await trash('?authorId=trash-author', admin)).body.items).toEqual(newestFirst);
    expect((await trash('', stranger)).body.total).toBe(1);
    expect((await trash('', admin)).body.total).toBe(0);
  });

  it('restores every video in the trash, leaving other authors’ trash alone', async () => {
    const before = await trash();
    const ids = before.body.items.map((item) => item.id);
    expect(ids.length).toBeGreaterThan(0);
    expect(await complete('restore')).toMatchObject({
      kind: 'restore',
      total: ids.length,
      done: ids.length,
      state: 'completed',
    });
    expect([...(await states(ids)).values()]).toEqual(ids.map(() => 'active'));
    expect((await trash()).body.total).toBe(0);
    expect((await trash('', stranger)).body.total).toBe(1);
    expect(await complete('restore')).toMatchObject({ total: 0, done: 0, state: 'completed' });
  }, 120_000);

  it('restores 1,200 videos in batches: rows active, purges cancelled, index current', async () => {
    const ids = await seedVideos(boot.context, 1_200, { authorId: 'trash-bulk', objectsPerVideo: 1 });
    await trashDirectly(ids);
    const bulk = token('trash-bulk');
    expect((await trash('?limit=1', bulk)).body.total).toBe(1_200);

    expect(await complete('restore', bulk)).toMatchObject({ total: 1_200, done: 1_200, state: 'completed' });
    const after = await states(ids);
    expect([...after.values()].filter((state) => state === 'active')).toHaveLength(1_200);
    const rows: { id: string; version: number; deleted_at: Date | null }[] =
      await boot.context.dataSource.query('SELECT id, version, deleted_at FROM videos WHERE id IN (?)', [
        ids,
      ]);
    expect(rows.filter((row) => row.deleted_at !== null)).toEqual([]);
    // Each restore went through the state machine once: the version moved by exactly one more.
    expect(new Set(rows.map((row) => row.version))).toEqual(new Set([3]));
    // One bulk index write per batch: every document carries its row's version.
    await boot.context.indexAdmin.refresh();
    const indexed = await boot.context.indexInventory.versions(ids);
    expect(rows.filter((row) => indexed.get(row.id) !== row.version)).toEqual([]);
  }, 120_000);

  it('empties a trash of 1,200: the worker starts every deletion, then purges each', async () => {
    const ids = await seedVideos(boot.context, 1_200, { authorId: 'trash-empty', objectsPerVideo: 1 });
    const [kept] = await seedVideos(boot.context, 1, { authorId: 'trash-empty' });
    await trashDirectly(ids);
    const owner = token('trash-empty');

    expect(await complete('empty', owner)).toMatchObject({ total: 1_200, done: 1_200, state: 'completed' });
    expect((await trash('', owner)).body.total).toBe(0);
    expect(await complete('empty', owner)).toMatchObject({ total: 0, state: 'completed' });

    await waitFor(
      'the worker to purge 1,200 videos',
      async () => ((await states(ids)).size === 0 ? true : undefined),
      { timeoutMs: 150_000, intervalMs: 1_000 },
    );
    const audits: { reason: string; requested_by: string; n: number }[] = await boot.context.dataSource.query(
      `SELECT reason, requested_by, COUNT(*) AS n FROM deletion_audit WHERE video_id IN (?)
       GROUP BY reason, requested_by`,
      [ids],
    );
    expect(audits.map((a) => ({ ...a, n: Number(a.n) }))).toEqual([
      { reason: 'permanent', requested_by: 'trash-empty', n: 1_200 },
    ]);
    const objects = (await boot.context.allMediaKeys()).filter((key) => ids.some((id) => key.includes(id)));
    expect(objects).toEqual([]);
    expect((await states([kept!])).get(kept!)).toBe('active');
  }, 240_000);
});
