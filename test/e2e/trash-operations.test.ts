import { bootSystem } from '../support/boot';
import { waitFor } from '../support/processes';
import { seedTrash } from '../support/seed';
import { call, token } from '../support/system';
import {
  askTrashOperation,
  followTrashOperation,
  type TrashOperationBody,
} from '../support/trash-operations';

const AUTHOR = 'trash-op-author';
const author = token(AUTHOR);
const stranger = token('trash-op-stranger');
const admin = token('trash-op-admin', ['admin']);
const PROBLEM = /^application\/problem\+json/;
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

describe('trash operations: 202 from restoreTrash and emptyTrash, GET /api/trash-operations/{operationId} (§10.1)', () => {
  // No worker yet: the first tests look at requests before any work is done.
  const boot = bootSystem({
    system: { env: { PURGE_SWEEP_INTERVAL_MS: '1000', BULK_BATCH_SIZE: '20' }, worker: false },
  });

  const read = (operationId: string, bearer = author) =>
    call<TrashOperationBody & { errors?: { name: string }[] }>(
      'GET',
      `${boot.system.api}/api/trash-operations/${operationId}`,
      bearer,
    );
  const operationRows = async (authorId: string) => {
    const [row] = await boot.context.dataSource.query<{ n: string }[]>(
      'SELECT COUNT(*) AS n FROM trash_operations WHERE author_id = ?',
      [authorId],
    );
    return Number(row!.n);
  };
  const states = async (ids: string[]) => {
    const rows: { state: string; n: string }[] = await boot.context.dataSource.query(
      'SELECT state, COUNT(*) AS n FROM videos WHERE id IN (?) GROUP BY state',
      [ids],
    );
    return Object.fromEntries(rows.map((row) => [row.state, Number(row.n)]));
  };

  it('answers 401 without a token, 400 for an id that is not a UUID, 404 for an unknown one', async () => {
    expect((await read(UNKNOWN, '')).status).toBe(401);
    expect((await read('not-an-id', '')).status).toBe(401);
    const bad = await read('not-an-id');
    expect([bad.status, bad.headers.get('content-type')]).toEqual([400, expect.stringMatching(PROBLEM)]);
    expect(bad.body.errors!.map((error) => error.name)).toEqual(['operationId']);
    for (const bearer of [author, admin]) {
      const missing = await read(UNKNOWN, bearer);
      expect([missing.status, missing.headers.get('content-type')]).toEqual([
        404,
        expect.stringMatching(PROBLEM),
      ]);
    }
    // Another author's trash is refused before anything is written.
    expect((await askTrashOperation(boot.system.api, 'empty', stranger, `?authorId=${AUTHOR}`)).status).toBe(
      403,
    );
    expect(await operationRows(AUTHOR)).toBe(0);
  }, 30_000);

  it('answers 202 at once; every request while it runs, of either kind, gets the same operation; the worker completes it with exact progress', async () => {
    const ids = await seedTrash(boot.context, AUTHOR, 45);
    const others = await seedTrash(boot.context, 'trash-op-bystander', 3);

    // Racing requests, from the author and an admin: one operation, whoever wins.
    const answers = await Promise.all([
      askTrashOperation(boot.system.api, 'restore', author),
      askTrashOperation(boot.system.api, 'restore', author),
      askTrashOperation(boot.system.api, 'restore', admin, `?authorId=${AUTHOR}`),
    ]);
    const [first] = answers;
    expect(first).toMatchObject({ status: 202, body: { videos: 45, state: 'running' } });
    expect(Object.keys(first.body).sort()).toEqual(['operationId', 'state', 'videos']);
    for (const answer of answers) {
      expect(answer).toMatchObject({ status: 202, body: { operationId: first.body.operationId } });
    }
    const { operationId } = first.body;
    // An empty asked while the restore runs answers the restore: one operation per trash at a time.
    expect(await askTrashOperation(boot.system.api, 'empty', author)).toMatchObject({
      status: 202,
      body: { operationId, videos: 45, state: 'running' },
    });
    expect(await operationRows(AUTHOR)).toBe(1);
    // Deleted after the request (50 ms from now): not part of it.
    const [later] = await seedTrash(boot.context, AUTHOR, 1, new Date(Date.now() + 1_050));

    // The owner and an admin may follow it, nobody else; the id is read in any letter case.
    expect((await read(operationId, stranger)).status).toBe(403);
    expect((await read(operationId, admin)).body).toMatchObject({ authorId: AUTHOR, kind: 'restore' });
    const before = await read(operationId.toUpperCase());
    expect(before.body).toEqual({
      operationId,
      authorId: AUTHOR,
      kind: 'restore',
      total: 45,
      done: 0,
      state: 'running',
      startedAt: before.body.startedAt,
      completedAt: null,
    });
    expect(Date.parse(before.body.startedAt)).toBeLessThanOrEqual(Date.now());

    // The worker starts now, with batches of 20: three transactions.
    await boot.system.startWorker();
    const { final, seen } = await followTrashOperation(boot.system.api, operationId, author, {
      timeoutMs: 60_000,
      intervalMs: 20,
    });
    expect(final).toMatchObject({ total: 45, done: 45, state: 'completed' });
    expect(Date.parse(final.completedAt!)).toBeGreaterThanOrEqual(Date.parse(final.startedAt));
    expect(final.startedAt).toBe(before.body.startedAt);
    // Progress is committed per batch: only ever 0, 20, 40 or the total.
    expect(seen.every((body) => [0, 20, 40, 45].includes(body.done))).toBe(true);
    expect(await states(ids)).toEqual({ active: 45 });
    expect(await states([later!])).toEqual({ soft_deleted: 1 });
    expect(await states(others)).toEqual({ soft_deleted: 3 });
    const [events] = await boot.context.dataSource.query<{ n: string }[]>(
      `SELECT COUNT(*) AS n FROM outbox_events WHERE type = 'video.restored' AND subject IN (?)`,
      [ids],
    );
    expect(Number(events!.n)).toBe(45);

    // Once completed, a request starts a new operation, over what is in the trash now.
    const next = await askTrashOperation(boot.system.api, 'empty', author);
    expect(next).toMatchObject({ status: 202, body: { videos: 1 } });
    expect(next.body.operationId).not.toBe(operationId);
    const emptied = await followTrashOperation(boot.system.api, next.body.operationId, admin, {
      timeoutMs: 60_000,
    });
    expect(emptied.final).toMatchObject({ kind: 'empty', total: 1, done: 1, state: 'completed' });
    expect(await operationRows(AUTHOR)).toBe(2);
  }, 120_000);

  it('forgets a completed operation after TRASH_OPERATION_RETENTION_DAYS: the sweep prunes it, then 404', async () => {
    const answer = await askTrashOperation(boot.system.api, 'restore', admin, '?authorId=trash-op-retention');
    expect(answer).toMatchObject({ status: 202, body: { videos: 0 } });
    const { operationId } = answer.body;
    await followTrashOperation(boot.system.api, operationId, admin, { timeoutMs: 30_000 });
    // 30 days by default: one completed 31 days ago is past it; a running one is never pruned.
    await boot.context.dataSource.query(
      'UPDATE trash_operations SET completed_at = completed_at - INTERVAL 31 DAY WHERE id = ?',
      [operationId],
    );
    await waitFor(
      'the trash sweep to prune the operation',
      async () => ((await read(operationId, admin)).status === 404 ? true : undefined),
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    expect(await operationRows(AUTHOR)).toBe(2);
  }, 60_000);
});
