import { bootSystem } from '../support/boot';
import { seedVideos } from '../support/seed';
import { call, token } from '../support/system';
import type { TrashOperationAccepted } from '../support/trash-operations';

/**
 * Identities are opaque byte strings (docs/contract.md §2): a caller whose `sub` only looks like an
 * author's is another person, on every route that takes or derives an author. Each owner below has
 * look-alikes that differ by letter case, a trailing or leading space, an accent, the normal form
 * (NFC against NFD) or an invisible character; under MySQL's old `utf8mb4_unicode_ci` every one of
 * them shared the owner's trash, batches and erasure.
 */
const OWNERS: Record<string, string[]> = {
  'acc-x': [
    'ACC-X',
    'Acc-X',
    'acc-x ',
    ' acc-x',
    'acc-äx',
    'ácc-x',
    'acc-\u200bx',
    'acc-x\u200d',
    'acc-x\u00a0',
  ],
  // NFC (é as one code point) against NFD (e and a combining acute accent), and case.
  'caf\u00e9': ['cafe\u0301', 'CAF\u00c9', 'cafe', 'caf\u00e9\ufeff'],
};
const LOOK_ALIKES = Object.entries(OWNERS).flatMap(([owner, alikes]) =>
  alikes.map((alike) => ({ owner, alike })),
);

interface Page<T> {
  items: T[];
  total: number;
}
interface ErasureAnswer {
  erasureId: string;
  videos: number;
  state: string;
}

describe('look-alike identities never see or change another author\u2019s data (§2)', () => {
  /** Each owner's videos: [active, soft-deleted]. */
  const videos = new Map<string, { active: string; trashed: string }>();
  // No worker: erasures stay `running`, so a second one for a look-alike would meet the first.
  const boot = bootSystem({ system: { worker: false } });

  beforeAll(async () => {
    for (const owner of Object.keys(OWNERS)) {
      const [active, trashed] = await seedVideos(boot.context, 2, {
        authorId: owner,
        title: (n) => `Look-alike probe ${n}`,
      });
      const deleted = await call(
        'DELETE',
        `${boot.system.api}/api/videos/${trashed}?retentionDays=30`,
        token(owner),
      );
      expect(deleted.status).toBe(200);
      videos.set(owner, { active: active!, trashed: trashed! });
    }
  }, 60_000);

  const api = (path: string) => `${boot.system.api}${path}`;
  const states = async () => {
    const rows: { id: string; author_id: string; state: string; version: number }[] =
      await boot.context.dataSource.query('SELECT id, author_id, state, version FROM videos ORDER BY id');
    return rows;
  };

  it('search: authorId filters by the exact author only', async () => {
    for (const owner of Object.keys(OWNERS)) {
      const own = await call<Page<{ authorId: string }>>(
        'GET',
        api(`/api/videos/search?q=probe&authorId=${encodeURIComponent(owner)}`),
        token(owner),
      );
      expect(own.status).toBe(200);
      expect(own.body.items.map((item) => item.authorId)).toEqual([owner]);
    }
    for (const { alike } of LOOK_ALIKES) {
      const found = await call<Page<unknown>>(
        'GET',
        api(`/api/videos/search?q=probe&authorId=${encodeURIComponent(alike)}`),
        token(alike),
      );
      expect([alike, found.status, found.body.total]).toEqual([alike, 200, 0]);
    }
  });

  it('delete, restore and receipts: a look-alike is a stranger (403), and nothing changes', async () => {
    const before = await states();
    for (const { owner, alike } of LOOK_ALIKES) {
      const { active, trashed } = videos.get(owner)!;
      const outcomes = [
        await call('DELETE', api(`/api/videos/${active}`), token(alike)),
        await call('DELETE', api(`/api/videos/${active}?permanent=true`), token(alike)),
        await call('POST', api(`/api/videos/${trashed}/restore`), token(alike)),
        await call('GET', api(`/api/videos/${trashed}/deletion`), token(alike)),
      ].map((answer) => answer.status);
      expect([alike, outcomes]).toEqual([alike, [403, 403, 403, 403]]);
    }
    expect(await states()).toEqual(before);
  });

  it('the trash: a look-alike lists, restores and empties only its own (empty) trash', async () => {
    const before = await states();
    const alikeOperations = new Map<string, string>();
    for (const { alike } of LOOK_ALIKES) {
      const listed = await call<Page<{ id: string }>>('GET', api('/api/videos/trash'), token(alike));
      expect([alike, listed.status, listed.body.items]).toEqual([alike, 200, []]);
      const restored = await call<TrashOperationAccepted>(
        'POST',
        api('/api/videos/trash/restore'),
        token(alike),
      );
      const emptied = await call<TrashOperationAccepted>('DELETE', api('/api/videos/trash'), token(alike));
      // No worker runs: the look-alike's restore stays running, and its empty answers that one.
      expect([alike, restored.status, restored.body.videos]).toEqual([alike, 202, 0]);
      expect([alike, emptied.status, emptied.body.operationId]).toEqual([
        alike,
        202,
        restored.body.operationId,
      ]);
      alikeOperations.set(alike, restored.body.operationId);
    }
    expect(new Set(alikeOperations.values()).size).toBe(LOOK_ALIKES.length);
    // Each owner's trash is its own operation, counting its own video only; a look-alike's is not the owner's to read.
    for (const [owner] of videos) {
      const asked = await call<TrashOperationAccepted>(
        'POST',
        api('/api/videos/trash/restore'),
        token(owner),
      );
      expect([owner, asked.status, asked.body.videos]).toEqual([owner, 202, 1]);
      expect([...alikeOperations.values()]).not.toContain(asked.body.operationId);
      for (const { alike } of LOOK_ALIKES.filter((pair) => pair.owner === owner)) {
        const read = await call(
          'GET',
          api(`/api/trash-operations/${alikeOperations.get(alike)!}`),
          token(owner),
        );
        expect([alike, read.status]).toEqual([alike, 403]);
      }
    }
    expect(await states()).toEqual(before);
    // An admin asking for a look-alike's trash gets that (empty) trash, not the owner's.
    const admin = token('identity-admin', ['admin']);
    for (const { alike } of LOOK_ALIKES) {
      const listed = await call<Page<{ id: string }>>(
        'GET',
        api(`/api/videos/trash?authorId=${encodeURIComponent(alike)}`),
        admin,
      );
      expect([alike, listed.body.items]).toEqual([alike, []]);
    }
    for (const [owner, { trashed }] of videos) {
      const listed = await call<Page<{ id: string }>>('GET', api('/api/videos/trash'), token(owner));
      expect(listed.body.items.map((item) => item.id)).toEqual([trashed]);
    }
  }, 60_000);

  it('erasure: a look-alike may not erase the owner, and its own erasure is its own', async () => {
    const admin = token('identity-admin', ['admin']);
    const owners = Object.keys(OWNERS);
    const ownerErasures = new Map<string, string>();
    for (const owner of owners) {
      const dry = await call<{ videos: number }>(
        'DELETE',
        api(`/api/authors/${encodeURIComponent(owner)}/videos?dryRun=true`),
        admin,
      );
      expect([owner, dry.body.videos]).toEqual([owner, 2]);
      const asked = await call<ErasureAnswer>(
        'DELETE',
        api(`/api/authors/${encodeURIComponent(owner)}/videos`),
        admin,
      );
      expect(asked.status).toBe(202);
      ownerErasures.set(owner, asked.body.erasureId);
    }
    const before = await states();
    for (const { owner, alike } of LOOK_ALIKES) {
      const path = (author: string) => api(`/api/authors/${encodeURIComponent(author)}/videos`);
      expect((await call('DELETE', path(owner), token(alike))).status).toBe(403);
      expect((await call('GET', api(`/api/erasures/${ownerErasures.get(owner)}`), token(alike))).status).toBe(
        403,
      );
      // The look-alike erases itself: it has nothing to erase (200, nothing written), and is never
      // answered with the owner's running erasure.
      const dry = await call<{ videos: number }>('DELETE', `${path(alike)}?dryRun=true`, token(alike));
      expect([alike, dry.body.videos]).toEqual([alike, 0]);
      const own = await call<Record<string, unknown>>('DELETE', path(alike), token(alike));
      expect([alike, own.status, own.body]).toEqual([alike, 200, { videos: 0 }]);
    }
    expect(await states()).toEqual(before);
    const erasures: { author_id: string; active_author: string | null }[] =
      await boot.context.dataSource.query('SELECT author_id, active_author FROM erasures');
    expect(erasures.map((row) => row.author_id).sort()).toEqual([...owners].sort());
  });
});
