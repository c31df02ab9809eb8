import {
  authorRemains,
  followErasure,
  outboxForgets,
  outboxMentions,
  unerasedEvents,
  type ErasureBody,
} from '../support/erasures';
import { bootSystem } from '../support/boot';
import { waitFor } from '../support/processes';
import { seedVideos } from '../support/seed';
import { call, token } from '../support/system';
import {
  fetchPublishedBodySchemas,
  publishedSchemaViolations,
  startWebhookReceiver,
  webhookEnv,
  type WebhookReceiver,
} from '../support/webhook-receiver';

const DAY = 86_400_000;
const author = token('erase-author');
const stranger = token('erase-stranger');
const admin = token('erase-admin', ['admin']);
const PROBLEM = /^application\/problem\+json/;

interface Accepted {
  erasureId: string;
  videos: number;
  state: string;
}

describe('DELETE /api/authors/{authorId}/videos and GET /api/erasures/{erasureId} (§10.2)', () => {
  // No worker yet: the first tests look at requests before any work is done.
  const boot = bootSystem({
    system: { env: { PURGE_SWEEP_INTERVAL_MS: '1000', BULK_BATCH_SIZE: '20' }, worker: false },
  });

  const erase = (authorId: string, query = '', bearer = author) =>
    call<Accepted & { dryRun?: boolean; errors?: { name: string }[] }>(
      'DELETE',
      `${boot.system.api}/api/authors/${encodeURIComponent(authorId)}/videos${query}`,
      bearer,
    );
  const read = (erasureId: string, bearer = author) =>
    call<ErasureBody>('GET', `${boot.system.api}/api/erasures/${erasureId}`, bearer);
  const states = async (ids: string[]) => {
    const rows: { state: string; n: number | string }[] = await boot.context.dataSource.query(
      'SELECT state, COUNT(*) AS n FROM videos WHERE id IN (?) GROUP BY state',
      [ids],
    );
    return Object.fromEntries(rows.map((row) => [row.state, Number(row.n)]));
  };
  const erasureRows = async (authorId: string) => {
    const [row] = await boot.context.dataSource.query<{ n: number | string }[]>(
      'SELECT COUNT(*) AS n FROM erasures WHERE author_id = ?',
      [authorId],
    );
    return Number(row!.n);
  };

  it('answers 401 without a token, 400 for bad input, 403 to anyone but the author or an admin', async () => {
    expect((await erase('erase-author', '?retentionDays=x', '')).status).toBe(401);
    expect((await read('00000000-0000-4000-8000-000000000000', '')).status).toBe(401);

    const cases: [string, string, string[]][] = [
      ['a'.repeat(129), '', ['authorId']],
      ['erase-author', '?retentionDays=3651', ['retentionDays']],
      ['erase-author', '?retentionDays=-1', ['retentionDays']],
      ['erase-author', '?dryRun=true&dryRun=true', ['dryRun']],
      ['b'.repeat(200), '?retentionDays=1.5', ['authorId', 'retentionDays']],
    ];
    for (const [authorId, query, names] of cases) {
      const answer = await erase(authorId, query);
      expect([answer.status, answer.headers.get('content-type')]).toEqual([
        400,
        expect.stringMatching(PROBLEM),
      ]);
      expect(answer.body.errors!.map((error) => error.name).sort()).toEqual(names);
    }
    const badId = await read('not-an-erasure', author);
    expect(badId.status).toBe(400);
    expect((await read('00000000-0000-4000-8000-000000000000', admin)).status).toBe(404);

    expect((await erase('erase-author', '', stranger)).status).toBe(403);
    expect((await erase('erase-author', '?dryRun=true', stranger)).status).toBe(403);
    expect(await erasureRows('erase-author')).toBe(0);
  });

  it('counts in a dry run and changes nothing', async () => {
    const ids = await seedVideos(boot.context, 7, { authorId: 'erase-dry' });
    const owner = token('erase-dry');
    await call('DELETE', `${boot.system.api}/api/videos/${ids[0]!}`, owner);
    await call('DELETE', `${boot.system.api}/api/videos/${ids[1]!}?permanent=true`, owner);
    // Active and soft-deleted videos count; one already being deleted does not.
    for (const [query, bearer] of [
      ['?dryRun=TRUE', owner],
      ['?dryRun=true&permanent=true', admin],
    ] as const) {
      expect(await erase('erase-dry', query, bearer)).toMatchObject({
        status: 200,
        body: { videos: 6, dryRun: true },
      });
    }
    expect(await states(ids)).toEqual({ active: 5, soft_deleted: 1, deleting: 1 });
    expect(await erasureRows('erase-dry')).toBe(0);
    expect((await erase('nobody-at-all', '?dryRun=true', admin)).body).toEqual({ videos: 0, dryRun: true });
  });

  it('soft-erases: 202 at once, the same erasure to every request while it runs, then every video soft-deleted', async () => {
    const ids = await seedVideos(boot.context, 45, { authorId: 'erase-author' });
    const other = await seedVideos(boot.context, 3, { authorId: 'erase-bystander' });
    await call('DELETE', `${boot.system.api}/api/videos/${ids[0]!}?retentionDays=1`, author);

    // Racing requests, from the author and an admin: one erasure, whoever wins.
    const answers = await Promise.all([
      erase('erase-author', '?retentionDays=5'),
      erase('erase-author', '?retentionDays=5'),
      erase('erase-author', '?retentionDays=5', admin),
      erase('erase-author', '?permanent=true', admin),
    ]);
    const [first] = answers;
    expect(first).toMatchObject({ status: 202, body: { videos: 45, state: 'running' } });
    expect(Object.keys(first.body).sort()).toEqual(['erasureId', 'state', 'videos']);
    for (const answer of answers)
      expect(answer).toMatchObject({ status: 202, body: { erasureId: first.body.erasureId } });
    expect(await erasureRows('erase-author')).toBe(1);
    expect((await read(first.body.erasureId, stranger)).status).toBe(403);
    expect((await read(first.body.erasureId, admin)).body).toMatchObject({
      mode: 'soft',
      done: 0,
      total: 45,
    });

    // The worker starts now, with batches of 20: three transactions.
    await boot.system.startWorker();
    const { final, seen } = await followErasure(boot.system.api, first.body.erasureId.toUpperCase(), author, {
      timeoutMs: 60_000,
    });
    expect(final).toMatchObject({
      authorId: 'erase-author',
      mode: 'soft',
      total: 45,
      done: 45,
      state: 'completed',
    });
    expect(Date.parse(final.completedAt!)).toBeGreaterThanOrEqual(Date.parse(final.startedAt));
    expect(seen.every((erasure) => erasure.done === 45 || erasure.state === 'running')).toBe(true);
    expect(await states(ids)).toEqual({ soft_deleted: 45 });
    expect(await states(other)).toEqual({ active: 3 });
    const rows: { deleted_at: Date; purge_at: Date; deletion_requested_by: string }[] =
      await boot.context.dataSource.query(
        'SELECT deleted_at, purge_at, deletion_requested_by FROM videos WHERE id IN (?)',
        [ids],
      );
    // retentionDays applies to every video, the one soft-deleted before included (from its own deletedAt).
    expect(rows.filter((row) => row.purge_at.getTime() - row.deleted_at.getTime() !== 5 * DAY)).toEqual([]);
    // The completion marked every event of the author erased; no receiver is configured, so none was
    // pending and the prune right after the commit deletes them all.
    expect(await unerasedEvents(boot.context, 'erase-author')).toBe(0);
    expect(await outboxForgets(boot.context, 'erase-author', [...ids, final.erasureId], 15_000)).toEqual({
      events: 0,
      deliveries: 0,
    });
    expect(await outboxMentions(boot.context, 'erase-bystander', other)).toEqual({
      events: 0,
      deliveries: 0,
    });

    // Completed: a new request starts a new erasure.
    const again = await erase('erase-author', '?dryRun=false');
    expect(again.status).toBe(202);
    expect(again.body.erasureId).not.toBe(first.body.erasureId);
    await followErasure(boot.system.api, again.body.erasureId, author, { timeoutMs: 30_000 });
  }, 120_000);

  it('permanently erases: completes only once every video is purged, media and index included', async () => {
    const ids = await seedVideos(boot.context, 30, { authorId: 'erase-forever', objectsPerVideo: 2 });
    const started = await erase('erase-forever', '?permanent=true', admin);
    expect(started).toMatchObject({ status: 202, body: { videos: 30 } });
    const { final } = await followErasure(boot.system.api, started.body.erasureId, token('erase-forever'), {
      timeoutMs: 90_000,
    });
    expect(final).toMatchObject({ mode: 'permanent', total: 30, done: 30 });
    const left = await authorRemains(boot.context, ids);
    expect(left).toEqual({ rows: {}, audits: 30, auditedOnce: true, objects: 0, documents: 0 });
    const purgedAt: { last: Date }[] = await boot.context.dataSource.query(
      "SELECT MAX(purged_at) AS last FROM deletion_audit WHERE video_id IN (?) AND reason = 'permanent' AND requested_by = 'erase-admin'",
      [ids],
    );
    expect(Date.parse(final.completedAt!)).toBeGreaterThanOrEqual(purgedAt[0]!.last.getTime());
    expect(await unerasedEvents(boot.context, 'erase-forever')).toBe(0);
    expect(await outboxForgets(boot.context, 'erase-forever', [...ids, final.erasureId], 15_000)).toEqual({
      events: 0,
      deliveries: 0,
    });
    const receipt = await call<{ state: string; requestedBy: string }>(
      'GET',
      `${boot.system.api}/api/videos/${ids[0]!}/deletion`,
      token('erase-forever'),
    );
    expect(receipt.body).toMatchObject({ state: 'deleted', requestedBy: 'erase-admin' });
  }, 120_000);
});

describe('a permanent erasure erases the author from the outbox once delivered (§10.4)', () => {
  const AUTHOR = 'outbox-erased-author';
  const OTHER = 'outbox-kept-author';
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  const boot = bootSystem({
    system: {
      env: () => ({ ...webhookEnv([receiver.url]), BULK_BATCH_SIZE: '20', OUTBOX_PRUNE_INTERVAL_MS: '1000' }),
    },
  });
  afterAll(() => receiver?.close());

  it("delivers every event, erasure.completed once, then keeps no row about the author; another author's stay", async () => {
    const ids = await seedVideos(boot.context, 25, { authorId: AUTHOR });
    const others = await seedVideos(boot.context, 2, { authorId: OTHER });
    // Events before the erasure, of both authors.
    for (const [id, owner] of [
      [ids[0]!, AUTHOR],
      [others[0]!, OTHER],
    ] as const) {
      expect((await call('DELETE', `${boot.system.api}/api/videos/${id}`, token(owner))).status).toBe(200);
      expect((await call('POST', `${boot.system.api}/api/videos/${id}/restore`, token(owner))).status).toBe(
        200,
      );
    }
    const started = await call<Accepted>(
      'DELETE',
      `${boot.system.api}/api/authors/${AUTHOR}/videos?permanent=true`,
      token(AUTHOR),
    );
    expect(started).toMatchObject({ status: 202, body: { videos: 25 } });
    const { erasureId } = started.body;
    await followErasure(boot.system.api, erasureId, token(AUTHOR), { timeoutMs: 90_000 });

    // Receivers learn of the deletion (one event, whatever the repeats), then the outbox forgets it.
    const completions = () =>
      new Set(
        receiver.received
          .filter((event) => event.valid && event.type === 'erasure.completed')
          .map((event) => event.id),
      );
    await waitFor('erasure.completed delivered', () =>
      Promise.resolve(completions().size > 0 ? true : undefined),
    );
    expect(await outboxForgets(boot.context, AUTHOR, [...ids, erasureId], 30_000)).toEqual({
      events: 0,
      deliveries: 0,
    });
    expect(completions().size).toBe(1);
    const received = receiver.received.filter(
      (event) => event.valid && JSON.stringify(event.body).includes(AUTHOR),
    );
    // Two events before the erasure, a deletion start and a purge per video, the completion.
    expect(new Set(received.map((event) => event.id)).size).toBe(2 + 2 * 25 + 1);
    // The completion among them: each body parses with the schema the OpenAPI document publishes.
    expect(publishedSchemaViolations(await fetchPublishedBodySchemas(boot.system.api), received)).toEqual([]);

    const kept: { author_id: string; n: string }[] = await boot.context.dataSource.query(
      'SELECT author_id, COUNT(*) AS n FROM outbox_events GROUP BY author_id',
    );
    expect(kept.map((row) => [row.author_id, Number(row.n)])).toEqual([[OTHER, 2]]);
    await waitFor("the other author's events delivered, and kept", async () => {
      const [row] = await boot.context.dataSource.query<{ n: string }[]>(
        "SELECT COUNT(*) AS n FROM webhook_deliveries WHERE subject = ? AND state = 'delivered'",
        [others[0]],
      );
      return Number(row!.n) === 2 ? true : undefined;
    });
  }, 180_000);
});
