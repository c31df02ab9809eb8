import { Queue } from 'bullmq';
import { receiverKey } from '@app/shared/net/receiver-url';
import { QUEUE_PREFIX, receiverQueueName } from '@app/shared/queue/queues';
import { bootSystem } from '../support/boot';
import { ENTRY, runProcess, waitFor } from '../support/processes';
import { webhookOutage } from '../support/scenarios/webhook-outage';
import { seedVideos, waitUntilGone } from '../support/seed';
import { call, token, type System } from '../support/system';
import {
  deliveryOrderViolations,
  fetchPublishedBodySchemas,
  publishedSchemaViolations,
  startWebhookReceiver,
  webhookEnv,
  type WebhookReceiver,
} from '../support/webhook-receiver';

const owner = token('author-1');
const ADMIN = { ADMIN_USERNAME: 'queues', ADMIN_PASSWORD: 'webhook-dashboard-pass' };

interface OutboxRow {
  id: string;
  type: string;
  subject: string;
  body: string;
}

/** Events (docs/contract.md §10.4) through the running API and worker, to real receivers that verify signatures. */
describe('webhooks', () => {
  let system: System | undefined;
  const receivers: WebhookReceiver[] = [];
  const boot = bootSystem({ reset: 'each', redis: 'own-each', system: false });
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
    system = undefined;
  });

  async function receiver(): Promise<WebhookReceiver> {
    const started = await startWebhookReceiver();
    receivers.push(started);
    return started;
  }

  async function start(urls: string[], extra: Record<string, string> = {}): Promise<System> {
    // The metrics read from MySQL follow within a fifth of a second.
    system = await boot.start({
      ...webhookEnv(urls),
      METRICS_REFRESH_INTERVAL_MS: '200',
      ...extra,
    });
    return system;
  }

  async function expectStatus(method: string, path: string, status = 200): Promise<Record<string, unknown>> {
    const response = await call(method, `${system!.api}${path}`, owner);
    expect(response.status).toBe(status);
    return response.body;
  }

  function outbox(ids: string[]): Promise<OutboxRow[]> {
    return boot.context.dataSource.query(
      'SELECT id, type, subject, body FROM outbox_events WHERE subject IN (?) ORDER BY seq',
      [ids],
    );
  }

  function undelivered(): Promise<number> {
    return boot.context.dataSource
      .query("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE state <> 'delivered'")
      .then((rows: { n: string }[]) => Number(rows[0]!.n));
  }

  async function waitAllDelivered(timeoutMs = 30_000): Promise<void> {
    await waitFor(
      'every delivery to be delivered',
      async () => ((await undelivered()) === 0 ? true : undefined),
      {
        timeoutMs,
      },
    );
  }

  function lastErrors(): Promise<string[]> {
    return boot.context.dataSource
      .query('SELECT last_error FROM webhook_deliveries WHERE last_error IS NOT NULL')
      .then((rows: { last_error: string }[]) => rows.map((row) => row.last_error));
  }

  async function metric(name: string, state: string): Promise<number> {
    const text = await (await fetch(`${system!.workerHealth}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`${name}{state="${state}"}`));
    return Number(line?.split(' ')[1] ?? NaN);
  }

  /** Waits for the worker's next reads of MySQL to show `value`. */
  function metricReaches(name: string, state: string, value: number): Promise<true> {
    return waitFor(`${name}{state="${state}"} to be ${value}`, async () =>
      (await metric(name, state)) === value ? true : undefined,
    );
  }

  it('records exactly one event per state change and delivers it, signed and in order, to every receiver', async () => {
    const receiving = [await receiver(), await receiver()];
    await start(receiving.map((r) => r.url));
    const [a, b, c] = await seedVideos(boot.context, 3);

    const soft = await expectStatus('DELETE', `/api/videos/${a}?retentionDays=1`);
    await expectStatus('POST', `/api/videos/${a}/restore`);
    await expectStatus('DELETE', `/api/videos/${a}?retentionDays=0`);
    await expectStatus('DELETE', `/api/videos/${b}?permanent=true`);
    await expectStatus('DELETE', `/api/videos/${c}`);
    await expectStatus('DELETE', `/api/videos/${c}`);
    expect((await call('POST', `${system!.api}/api/videos/${c}/restore`, token('stranger'))).status).toBe(
      403,
    );
    await expectStatus('POST', `/api/videos/${c}/restore`);
    await expectStatus('POST', `/api/videos/${c}/restore`);
    await waitUntilGone(boot.context, [a!, b!]);
    await waitAllDelivered();

    const events = await outbox([a!, b!, c!]);
    const typesOf = (id: string) => events.filter((e) => e.subject === id).map((e) => e.type);
    expect(typesOf(a!)).toEqual([
      'video.soft_deleted',
      'video.restored',
      'video.soft_deleted',
      'video.deletion_started',
      'video.purged',
    ]);
    expect(typesOf(b!)).toEqual(['video.deletion_started', 'video.purged']);
    expect(typesOf(c!)).toEqual(['video.soft_deleted', 'video.restored']);

    const data = (type: string, id: string) =>
      (
        JSON.parse(events.find((e) => e.type === type && e.subject === id)!.body) as {
          data: Record<string, unknown>;
        }
      ).data;
    expect(data('video.soft_deleted', a!)).toEqual({
      videoId: a,
      authorId: 'author-1',
      requestedBy: 'author-1',
      deletedAt: soft.deletedAt,
      purgeAt: soft.purgeAt,
    });
    // The purge at retention end is the soft delete's: it names who soft-deleted the video.
    expect(data('video.deletion_started', a!)).toMatchObject({
      reason: 'retention',
      requestedBy: 'author-1',
    });
    expect(data('video.purged', a!)).toMatchObject({ reason: 'retention', objectsRemoved: 2 });
    expect(data('video.purged', b!)).toMatchObject({
      videoId: b,
      authorId: 'author-1',
      reason: 'permanent',
      requestedBy: 'author-1',
      objectsRemoved: 2,
    });
    // A permanent deletion of an active video is dated by its request, before the purge ends it.
    const purgedB = data('video.purged', b!) as { deletedAt: string; purgedAt: string };
    expect(Date.parse(purgedB.deletedAt)).toBeLessThanOrEqual(Date.parse(purgedB.purgedAt));
    expect(data('video.deletion_started', b!)).toMatchObject({ startedAt: purgedB.deletedAt });

    const published = await fetchPublishedBodySchemas(system!.api);
    for (const r of receiving) {
      expect(r.received.every((event) => event.valid)).toBe(true);
      expect(r.validIds()).toEqual(new Set(events.map((e) => e.id)));
      expect(deliveryOrderViolations(r, events)).toEqual([]);
      // Every body as received parses with the schema the API's OpenAPI document publishes for its type.
      expect(publishedSchemaViolations(published, r.received)).toEqual([]);
      for (const event of events) {
        expect(r.received.find((got) => got.id === event.id)!.body).toEqual(JSON.parse(event.body));
      }
    }
  }, 90_000);

  it('keeps failing deliveries until a receiver that was down, redirecting, then slow answers', async () => {
    const target = await receiver();
    await target.setMode({ kind: 'down' });
    await start([target.url], ADMIN);
    const ids = await seedVideos(boot.context, 3);
    for (const id of ids) await expectStatus('DELETE', `/api/videos/${id}`);
    await expectStatus('POST', `/api/videos/${ids[0]}/restore`);

    await waitFor('retries against the closed port', async () => {
      const errors = await lastErrors();
      return errors.length === 3 && errors.every((e) => e.includes('ECONNREFUSED')) ? true : undefined;
    });
    await metricReaches('webhook_deliveries_undelivered', 'failing', 3);
    await metricReaches('webhook_deliveries_undelivered', 'pending', 1);
    // Failed attempts are failed jobs of the receiver's own queue, which the dashboard names.
    const own = receiverQueueName(receiverKey(target.url));
    const queue = new Queue(own, { connection: { url: boot.redis.url }, prefix: QUEUE_PREFIX });
    try {
      expect(await queue.getFailedCount()).toBeGreaterThan(0);
    } finally {
      await queue.close();
    }
    const basic = Buffer.from(`${ADMIN.ADMIN_USERNAME}:${ADMIN.ADMIN_PASSWORD}`).toString('base64');
    const board = await fetch(`${system!.api}/admin/queues/api/queues?activeQueue=${own}&status=failed`, {
      headers: { authorization: `Basic ${basic}` },
    });
    expect(board.status).toBe(200);
    const shown = (await board.json()) as {
      queues: { name: string; description?: string; counts: { failed: number } }[];
    };
    expect(shown.queues.find((q) => q.name === own)).toMatchObject({
      description: `webhook deliveries to ${target.url}`,
      counts: { failed: expect.any(Number) as number },
    });
    expect(shown.queues.find((q) => q.name === own)!.counts.failed).toBeGreaterThan(0);

    await target.setMode({ kind: 'redirect' });
    await waitFor('redirects to fail', async () =>
      (await lastErrors()).some((e) => e.startsWith('HTTP 302 (redirects are not followed)'))
        ? true
        : undefined,
    );
    await target.setMode({ kind: 'slow', delayMs: 2_500 });
    await waitFor('slow answers to time out', async () =>
      (await lastErrors()).some((e) => e === 'no answer within 1000 ms') ? true : undefined,
    );
    expect(await undelivered()).toBe(4);

    await target.setMode({ kind: 'up' });
    await waitAllDelivered();
    const events = await outbox(ids);
    expect(events).toHaveLength(4);
    expect(target.redirectsFollowed).toBe(0);
    expect(target.validIds()).toEqual(new Set(events.map((e) => e.id)));
    expect(deliveryOrderViolations(target, events)).toEqual([]);
    await metricReaches('webhook_deliveries_undelivered', 'failing', 0);
  }, 90_000);

  it('marks a delivery dead after its retry window, lists it, and delivers it on a retry from the CLI', async () => {
    const target = await receiver();
    await target.setMode({ kind: 'status', status: 500 });
    const env = { ...webhookEnv([target.url]), REDIS_URL: boot.redis.url, WEBHOOK_RETRY_WINDOW_MS: '1000' };
    await start([target.url], env);
    const [id] = await seedVideos(boot.context, 1);
    await expectStatus('DELETE', `/api/videos/${id}`);
    await metricReaches('webhook_deliveries_undelivered', 'dead', 1);
    const [event] = await outbox([id!]);

    const listed = await runProcess(ENTRY.cli, ['webhooks', 'list'], env);
    expect(listed.code).toBe(0);
    const line = JSON.parse(listed.output.split('\n').find((l) => l.includes(event!.id))!) as Record<
      string,
      unknown
    >;
    expect(line).toMatchObject({
      eventId: event!.id,
      state: 'dead',
      type: 'video.soft_deleted',
      lastError: 'HTTP 500',
    });

    expect((await runProcess(ENTRY.cli, ['webhooks', 'retry', '--event', 'not-an-id'], env)).code).not.toBe(
      0,
    );
    await target.setMode({ kind: 'up' });
    const retried = await runProcess(ENTRY.cli, ['webhooks', 'retry', '--event', event!.id], env);
    expect(retried.output).toContain('1 delivery is due again.');
    await waitAllDelivered();
    expect(target.validIds()).toEqual(new Set([event!.id]));
  }, 90_000);

  it('refuses a receiver whose name resolves to loopback until allowed: the delivery fails visibly, then goes', async () => {
    const target = await receiver();
    const byName = target.url.replace('127.0.0.1', 'localhost');
    await start([byName], { WEBHOOK_ALLOWED_HOSTS: '' });
    const [id] = await seedVideos(boot.context, 1);
    await expectStatus('DELETE', `/api/videos/${id}`);
    const refusal =
      'destination 127.0.0.1 (localhost) is a loopback address; allow it with WEBHOOK_ALLOWED_HOSTS';
    await waitFor('the refusal to be recorded', async () =>
      (await lastErrors()).includes(refusal) ? true : undefined,
    );
    const [row] = await boot.context.dataSource.query<{ state: string; attempts: number }[]>(
      'SELECT state, attempts FROM webhook_deliveries',
    );
    // A failed attempt like any other: kept, retried, counted, and nothing reached the receiver.
    expect(row!.state).toBe('pending');
    expect(row!.attempts).toBeGreaterThan(0);
    // Counted once the worker's next read of MySQL (every METRICS_REFRESH_INTERVAL_MS) has seen it.
    await metricReaches('webhook_deliveries_undelivered', 'failing', 1);
    expect(target.received).toEqual([]);

    // The operator allows it: a worker with the new configuration delivers what was refused.
    const [, worker] = system!.processes;
    await worker!.stop();
    await system!.startWorker({ WEBHOOK_ALLOWED_HOSTS: 'localhost' });
    await waitAllDelivered();
    expect(target.validIds()).toEqual(new Set((await outbox([id!])).map((event) => event.id)));
  }, 90_000);

  it("sends a receiver's credentials and query token, and shows them nowhere: rows, logs, CLI, dashboard, metrics", async () => {
    const target = await receiver();
    await target.setMode({ kind: 'status', status: 500 });
    const secrets = ['pass-s3cret', 'query-s3cret'];
    const configured = target.url.replace('http://', 'http://hooks:pass-s3cret@') + '?token=query-s3cret';
    const env = { ...webhookEnv([configured]), REDIS_URL: boot.redis.url, LOG_LEVEL: 'trace', ...ADMIN };
    await start([configured], env);
    const [id] = await seedVideos(boot.context, 1);
    await expectStatus('DELETE', `/api/videos/${id}`);
    await waitFor('a failed attempt', async () => ((await lastErrors()).length > 0 ? true : undefined));

    const rows = await boot.context.dataSource.query<{ endpoint: string }[]>(
      'SELECT endpoint FROM webhook_deliveries',
    );
    expect(rows.map((row) => row.endpoint)).toEqual([`${target.url}?token=***`]);
    const listed = await runProcess(ENTRY.cli, ['webhooks', 'list'], env);
    expect(listed.output).toContain(`${target.url}?token=***`);
    const basic = Buffer.from(`${ADMIN.ADMIN_USERNAME}:${ADMIN.ADMIN_PASSWORD}`).toString('base64');
    const own = receiverQueueName(receiverKey(configured));
    const board = await fetch(`${system!.api}/admin/queues/api/queues?activeQueue=${own}&status=failed`, {
      headers: { authorization: `Basic ${basic}` },
    });
    const metrics = await Promise.all(
      [system!.api, system!.workerHealth].map(async (base) => (await fetch(`${base}/metrics`)).text()),
    );

    await target.setMode({ kind: 'up' });
    await waitAllDelivered();
    // The receiver got them: the password as Basic authorization, the token in the query.
    expect(target.received.at(-1)).toMatchObject({
      path: '/hooks?token=query-s3cret',
      authorization: `Basic ${Buffer.from('hooks:pass-s3cret').toString('base64')}`,
    });
    const shown = [
      JSON.stringify(rows),
      listed.output,
      await board.text(),
      ...metrics,
      ...system!.processes.map((process) => process.output()),
    ];
    for (const secret of secrets) expect(shown.filter((text) => text.includes(secret))).toEqual([]);
  }, 90_000);

  it('delivers every event once a receiver that was down and then slow recovers, through worker kills and a Redis flush', async () => {
    const report = await webhookOutage(boot.context, boot.redis, {
      videos: 20,
      downMs: 4_000,
      slowMs: 9_000,
      kills: 2,
      timeoutMs: 1_000,
      retryMaxMs: 2_000,
      settleTimeoutMs: 60_000,
    });
    expect(report.violations).toEqual([]);
  }, 150_000);
});
