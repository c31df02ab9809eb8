import { bootSystem } from '../support/boot';
import { waitFor } from '../support/processes';
import { remains, seedVideos } from '../support/seed';
import { call, token } from '../support/system';

const author = token('receipt-author');
const stranger = token('receipt-stranger');
const admin = token('receipt-admin', ['admin']);

interface Receipt {
  id: string;
  state: string;
  deletedAt: string | null;
  purgeAt: string | null;
  requestedBy: string | null;
  reason: string;
  completedAt: string | null;
  objectsRemoved: number | null;
}

describe('GET /api/videos/{id}/deletion (contract §10.3)', () => {
  const boot = bootSystem({ system: { env: { PURGE_SWEEP_INTERVAL_MS: '1000' } } });

  const receipt = (id: string, bearer?: string) =>
    call<Receipt>('GET', `${boot.system.api}/api/videos/${id}/deletion`, bearer);
  const del = (id: string, query: string, bearer = author) =>
    call<{ deletedAt: string; purgeAt: string }>(
      'DELETE',
      `${boot.system.api}/api/videos/${id}${query}`,
      bearer,
    );
  const seed = async (objectsPerVideo = 2) =>
    (await seedVideos(boot.context, 1, { authorId: 'receipt-author', objectsPerVideo }))[0]!;
  const gone = (id: string) =>
    waitFor(
      `purge of ${id}`,
      async () => ((await remains(boot.context, id)).row === null ? true : undefined),
      {
        timeoutMs: 30_000,
      },
    );

  it('needs a token, a valid id, and answers 404 for an active video or one that never existed', async () => {
    const id = await seed();
    expect((await receipt(id)).status).toBe(401);
    const bad = await receipt('not-a-uuid', author);
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await receipt(id, author)).status).toBe(404);
    expect((await receipt('00000000-0000-4000-8000-000000000000', admin)).status).toBe(404);
  });

  it('describes a soft delete to its author and an admin, and refuses anyone else', async () => {
    const id = await seed();
    const deleted = await del(id, '?retentionDays=7');
    expect(deleted.status).toBe(200);
    expect((await receipt(id, stranger)).status).toBe(403);
    for (const bearer of [author, admin]) {
      const answer = await receipt(id.toUpperCase(), bearer);
      expect(answer).toMatchObject({ status: 200 });
      expect(answer.body).toEqual({
        id,
        state: 'soft_deleted',
        deletedAt: deleted.body.deletedAt,
        purgeAt: deleted.body.purgeAt,
        requestedBy: 'receipt-author',
        reason: 'retention',
        completedAt: null,
        objectsRemoved: null,
      });
    }
  });

  it('keeps answering from the audit record after a permanent deletion removed the row', async () => {
    const id = await seed(3);
    const before = Date.now();
    expect((await del(id, '?permanent=true', admin)).status).toBe(200);
    await gone(id);
    expect((await receipt(id, stranger)).status).toBe(403);
    const answer = await receipt(id, author);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      id,
      state: 'deleted',
      purgeAt: null,
      requestedBy: 'receipt-admin',
      reason: 'permanent',
      objectsRemoved: 3,
    });
    const deletedAt = Date.parse(answer.body.deletedAt!);
    const completedAt = Date.parse(answer.body.completedAt!);
    expect(deletedAt).toBeGreaterThanOrEqual(before - 1_000);
    expect(completedAt).toBeGreaterThanOrEqual(deletedAt);
    expect(completedAt).toBeLessThanOrEqual(Date.now() + 1_000);
  }, 60_000);

  it('names the soft delete as the request behind a purge at retention end', async () => {
    const id = await seed(1);
    const deleted = await del(id, '?retentionDays=0');
    await gone(id);
    const answer = await receipt(id, admin);
    expect(answer.body).toMatchObject({
      state: 'deleted',
      deletedAt: deleted.body.deletedAt,
      purgeAt: deleted.body.purgeAt,
      requestedBy: 'receipt-author',
      reason: 'retention',
      objectsRemoved: 1,
    });
  }, 60_000);
});
