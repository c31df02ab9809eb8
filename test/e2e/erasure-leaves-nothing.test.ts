import { randomUUID } from 'node:crypto';
import { QUEUE_PREFIX, QUEUES } from '@app/shared/queue/queues';
import { mediaPrefix } from '@app/shared/storage/storage.service';
import { Redis } from 'ioredis';
import { ExpungeSweepHandler } from '@app/worker/index/expunge-sweep.handler';
import { bootSystem } from '../support/boot';
import { followErasure, outboxForgets } from '../support/erasures';
import { waitFor } from '../support/processes';
import { seedVideos, waitUntilGone } from '../support/seed';
import { indexMentions, mysqlMentions, redisMentions, s3Mentions } from '../support/store-search';
import { call, token } from '../support/system';
import { completeTrashOperation } from '../support/trash-operations';
import { startWebhookReceiver, webhookEnv, type WebhookReceiver } from '../support/webhook-receiver';

/** Where an erased author's id may stay: the receipts' audit records and the erasure's progress. */
const ALLOWED_TABLES = ['deletion_audit', 'erasures'];

/**
 * An erasure erases (docs/contract.md §10.4): after a permanent erasure completes and the index's
 * deleted documents are expunged, the author's id is in no MySQL table but the audit records and the
 * erasure's, in no Redis key or value (BullMQ's jobs and events included), in no S3 object (the
 * deletion ledger included), in no index document or segment, and in no line the processes printed.
 */
describe('a completed erasure leaves the author in no store', () => {
  // Unique per run, so nothing an earlier run left can match.
  const AUTHOR = `erased-${randomUUID()}`;
  const BYSTANDER = `kept-${randomUUID()}`;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  const boot = bootSystem({
    seed: async (context) => {
      // The test's own Redis database: whatever earlier suites left there would be searched too.
      const redis = new Redis(context.config.REDIS_URL, { maxRetriesPerRequest: 1 });
      await redis.flushdb().finally(() => redis.disconnect());
    },
    system: {
      env: () => ({
        ...webhookEnv([receiver.url]),
        BULK_BATCH_SIZE: '4',
        OUTBOX_PRUNE_INTERVAL_MS: '1000',
        // The worker's expunge waits a day here: the test shows the deleted documents before it runs it.
        EXPUNGE_INTERVAL_MS: '86400000',
      }),
    },
  });
  afterAll(() => receiver?.close());
  const redisUrl = () => boot.context.config.REDIS_URL;

  const author = token(AUTHOR);
  const api = (method: string, path: string, bearer = author) =>
    call(method, `${boot.system.api}${path}`, bearer);
  const everywhere = async (needle: string) => ({
    mysql: await mysqlMentions(boot.context, needle),
    redis: await redisMentions(redisUrl(), needle),
    s3: await s3Mentions(boot.context, needle),
    index: await indexMentions(boot.context, needle),
  });

  it('finds the author in every store before, only in the audit records and the erasure after', async () => {
    const ids = await seedVideos(boot.context, 10, {
      authorId: AUTHOR,
      objectsPerVideo: 2,
      description: (n) => `Talk ${n} given by ${AUTHOR}`,
    });
    const kept = await seedVideos(boot.context, 2, { authorId: BYSTANDER, objectsPerVideo: 1 });
    // Media that name their author, as a sidecar of the upload would.
    for (const id of ids)
      await boot.context.storage.putObject(
        `${mediaPrefix(id)}meta.json`,
        JSON.stringify({ author: AUTHOR }),
        'application/json',
      );

    // The author's own history: soft deletes, a restore, a permanent delete, a search, an emptied trash.
    for (const [method, path] of [
      ['DELETE', `/api/videos/${ids[0]!}`],
      ['DELETE', `/api/videos/${ids[1]!}`],
      ['POST', `/api/videos/${ids[1]!}/restore`],
      ['DELETE', `/api/videos/${ids[2]!}?permanent=true`],
      ['DELETE', `/api/videos/${ids[3]!}`],
      ['GET', `/api/videos/search?q=talk&authorId=${AUTHOR}`],
    ] as const)
      expect([method, path, (await api(method, path)).status]).toEqual([method, path, 200]);
    const emptied = await completeTrashOperation(boot.system.api, 'empty', author, { timeoutMs: 60_000 });
    expect(emptied).toMatchObject({ authorId: AUTHOR, total: 2, state: 'completed' });
    // And one video left in the trash for the erasure.
    expect((await api('DELETE', `/api/videos/${ids[4]!}`)).status).toBe(200);
    await waitUntilGone(boot.context, [ids[0]!, ids[2]!, ids[3]!]);

    // The control: each search finds the author where the system keeps them before the erasure.
    const before = await everywhere(AUTHOR);
    expect(Object.keys(before.mysql).sort()).toEqual(
      ['deletion_audit', 'outbox_events', 'trash_operations', 'videos'].sort(),
    );
    // The sidecars of the seven videos not purged yet; their documents.
    expect(before.s3).toHaveLength(7);
    expect(before.index).toBeGreaterThanOrEqual(6);
    // Nothing of the system's writes names the author in Redis or S3 even now (jobs carry ids, the
    // ledger no person): a key and a value of every type, planted, show the search would see it.
    const redis = new Redis(redisUrl(), { maxRetriesPerRequest: 1 });
    try {
      const plant = `planted:${AUTHOR}`;
      await redis.set('planted:string', `{"authorId":"${AUTHOR}"}`);
      await redis.hset('planted:hash', 'data', AUTHOR);
      await redis.rpush('planted:list', AUTHOR);
      await redis.sadd('planted:set', AUTHOR);
      await redis.zadd('planted:zset', 1, AUTHOR);
      await redis.xadd('planted:stream', '*', 'event', AUTHOR);
      await redis.set(plant, '1');
      expect((await redisMentions(redisUrl(), AUTHOR)).sort()).toEqual(
        [
          plant,
          'planted:hash',
          'planted:list',
          'planted:set',
          'planted:stream',
          'planted:string',
          'planted:zset',
        ].sort(),
      );
      await redis.del(
        plant,
        'planted:string',
        'planted:hash',
        'planted:list',
        'planted:set',
        'planted:zset',
        'planted:stream',
      );
    } finally {
      redis.disconnect();
    }

    // The permanent erasure, to its completion.
    const started = await api('DELETE', `/api/authors/${AUTHOR}/videos?permanent=true`);
    expect(started).toMatchObject({ status: 202, body: { videos: 7 } });
    const erasureId = (started.body as { erasureId: string }).erasureId;
    await followErasure(boot.system.api, erasureId, author, { timeoutMs: 90_000 });
    await waitFor('erasure.completed delivered', () =>
      Promise.resolve(
        receiver.received.some((event) => event.valid && event.type === 'erasure.completed')
          ? true
          : undefined,
      ),
    );
    expect(await outboxForgets(boot.context, AUTHOR, [...ids, erasureId], 30_000)).toEqual({
      events: 0,
      deliveries: 0,
    });

    // The engine still holds the deleted documents (their text) until the expunge, which the
    // worker runs every EXPUNGE_INTERVAL_MS; here the test runs its handler.
    expect(await boot.context.indexAdmin.deletedDocuments()).toBeGreaterThan(0);
    const expunge = boot.context.get(ExpungeSweepHandler);
    await waitFor(
      'the expunge to leave no deleted document',
      async () => ((await expunge.handle()).deletedAfter === 0 ? true : undefined),
      { timeoutMs: 90_000, intervalMs: 2_000 },
    );

    const after = await everywhere(AUTHOR);
    expect(Object.keys(after.mysql).sort()).toEqual(ALLOWED_TABLES);
    expect(after).toEqual({ mysql: { deletion_audit: 10, erasures: 1 }, redis: [], s3: [], index: 0 });
    expect(await boot.context.indexAdmin.deletedDocuments()).toBe(0);
    expect(boot.system.processes.filter((process) => process.output().includes(AUTHOR))).toEqual([]);
    // Another author's videos, media and documents stay.
    expect(await mysqlMentions(boot.context, BYSTANDER)).toEqual({ videos: 2 });
    expect(await indexMentions(boot.context, BYSTANDER)).toBe(2);
    expect((await boot.context.indexedIds()).sort()).toEqual([...kept].sort());
  }, 300_000);

  it('answers 200 { videos: 0 } to an erasure of nothing, and writes no row, event, delivery or job', async () => {
    const counts = async () => {
      const [row] = await boot.context.dataSource.query<Record<string, string>[]>(
        `SELECT (SELECT COUNT(*) FROM erasures) AS erasures, (SELECT COUNT(*) FROM outbox_events) AS events,
                (SELECT COUNT(*) FROM webhook_deliveries) AS deliveries`,
      );
      const redis = new Redis(redisUrl(), { maxRetriesPerRequest: 1 });
      try {
        const jobs = await redis.keys(`${QUEUE_PREFIX}:${QUEUES.erasure}:*`);
        return { ...row, jobs: jobs.sort() };
      } finally {
        redis.disconnect();
      }
    };
    const before = await counts();
    const admin = token('erasure-admin', ['admin']);
    for (const [authorId, bearer, query] of [
      [AUTHOR, author, '?permanent=true'],
      [AUTHOR, admin, ''],
      [`never-${randomUUID()}`, admin, '?permanent=true'],
      [`never-${randomUUID()}`, admin, '?retentionDays=3'],
    ] as const) {
      const answer = await call(
        'DELETE',
        `${boot.system.api}/api/authors/${authorId}/videos${query}`,
        bearer,
      );
      expect([answer.status, answer.body]).toEqual([200, { videos: 0 }]);
    }
    expect(await counts()).toEqual(before);
  }, 60_000);
});
