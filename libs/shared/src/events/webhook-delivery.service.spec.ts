import { Webhook } from 'standardwebhooks';
import { receiverKey, shownUrl } from '../net/receiver-url';
import type { JobQueues } from '../queue/job-queues.service';
import type { DeliveryToSend, DueDelivery, OutboxRepository, WindowDelivery } from './outbox.repository';
import type { PostResult, WebhookClient } from './webhook.client';
import { SWEEP_WINDOW, WebhookDeliveryService } from './webhook-delivery.service';
import { WebhookSigner } from './webhook-signer';

const HOUR = 3_600_000;
const SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
const RECEIVER = 'http://receiver.test/hooks';

function delivery(id: string, changes: Partial<DeliveryToSend> = {}): DeliveryToSend {
  return {
    id,
    eventId: `00000000-0000-4000-8000-00000000000${id}`,
    type: 'video.soft_deleted',
    subject: 'video-1',
    endpoint: RECEIVER,
    endpointKey: receiverKey(RECEIVER),
    state: 'pending',
    attempts: 0,
    firstFailedAt: null,
    body: `{"type":"video.soft_deleted","n":${id}}`,
    ...changes,
  };
}

/** The deliveries table in memory, with the repository's order rule and conditional writes. */
function setUp(rows: DeliveryToSend[], answers: PostResult[] = [], receivers = [RECEIVER]) {
  const windows: { endpointKey: string; afterId: string; limit: number }[] = [];
  const table = new Map(rows.map((row) => [row.id, { ...row, nextAttemptAt: 0 }]));
  const enqueued: string[] = [];
  const sent: { url: string; headers: Record<string, string>; body: string }[] = [];
  const waits = (id: string) => {
    const row = table.get(id)!;
    return [...table.values()].some(
      (other) =>
        other.subject === row.subject &&
        other.endpointKey === row.endpointKey &&
        Number(other.id) < Number(id) &&
        other.state !== 'delivered',
    );
  };
  const due = (now: Date): DueDelivery[] =>
    [...table.values()]
      .filter((row) => row.state === 'pending' && row.nextAttemptAt <= now.getTime() && !waits(row.id))
      .map((row) => ({ id: row.id, attempts: row.attempts }));
  const pending = () => [...table.values()].filter((row) => row.state === 'pending');
  const outbox = {
    findToSend: (id: string) => Promise.resolve(table.get(id)),
    waitsForEarlier: (id: string) => Promise.resolve(waits(id)),
    pendingReceivers: () => Promise.resolve([...new Set(pending().map((row) => row.endpointKey))]),
    sweepWindow: (endpointKey: string, afterId: string, limit: number, now: Date) => {
      windows.push({ endpointKey, afterId, limit });
      return Promise.resolve(
        pending()
          .filter((row) => row.endpointKey === endpointKey && Number(row.id) > Number(afterId))
          .sort((a, b) => Number(a.id) - Number(b.id))
          .slice(0, limit)
          .map((row): WindowDelivery => ({
            id: row.id,
            attempts: row.attempts,
            ready: row.nextAttemptAt <= now.getTime() && !waits(row.id),
          })),
      );
    },
    nextHead: (after: DeliveryToSend, now: Date) =>
      Promise.resolve(due(now).find((row) => Number(row.id) > Number(after.id))),
    markDelivered: (id: string, attempts: number) => {
      const row = table.get(id)!;
      if (row.attempts !== attempts || row.state !== 'pending') return Promise.resolve(false);
      Object.assign(row, { state: 'delivered', attempts: attempts + 1 });
      return Promise.resolve(true);
    },
    markFailed: (id: string, attempts: number, failure: { now: Date; next: Date | null }) => {
      const row = table.get(id)!;
      if (row.attempts !== attempts || row.state !== 'pending') return Promise.resolve(false);
      Object.assign(row, {
        state: failure.next ? 'pending' : 'dead',
        attempts: attempts + 1,
        firstFailedAt: row.firstFailedAt ?? failure.now,
        nextAttemptAt: failure.next?.getTime() ?? row.nextAttemptAt,
      });
      return Promise.resolve(true);
    },
  };
  const client = {
    post: (url: string, headers: Record<string, string>, body: string) => {
      sent.push({ url, headers, body });
      return Promise.resolve(answers.shift() ?? { ok: true, status: 204 });
    },
  };
  const queues = {
    ensureDeliveryJob: (
      { id, endpointKey }: { id: string; endpointKey: string },
      attempt: number,
      delayMs: number,
    ) => {
      if (endpointKey !== table.get(id)!.endpointKey) throw new Error(`${id} enqueued for another receiver`);
      enqueued.push(`${id}#${attempt}${delayMs > 0 ? ' later' : ''}`);
      return Promise.resolve();
    },
  };
  const service = new WebhookDeliveryService(
    outbox as unknown as OutboxRepository,
    client as unknown as WebhookClient,
    new WebhookSigner({ WEBHOOK_SECRET: SECRET }),
    queues as unknown as JobQueues,
    {
      WEBHOOK_URLS: receivers,
      WEBHOOK_RETRY_BASE_MS: 1_000,
      WEBHOOK_RETRY_MAX_MS: HOUR,
      WEBHOOK_RETRY_WINDOW_MS: 72 * HOUR,
    },
  );
  return { service, table, sent, enqueued, windows };
}

describe('WebhookDeliveryService', () => {
  it('sends the recorded body, signed so that the Standard Webhooks library verifies it', async () => {
    const { service, table, sent } = setUp([delivery('1')]);
    expect(await service.attempt('1', 0)).toEqual({ kind: 'delivered' });
    expect(table.get('1')!.state).toBe('delivered');
    expect(sent).toHaveLength(1);
    const { headers, body, url } = sent[0]!;
    expect(url).toBe(RECEIVER);
    expect(body).toBe(delivery('1').body);
    expect(headers['webhook-id']).toBe(delivery('1').eventId);
    expect(new Webhook(SECRET).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(body, headers),
    ).toThrow();
  });

  it('keeps the order per subject and receiver: a later event waits, then follows at once', async () => {
    const { service, table, sent, enqueued } = setUp([
      delivery('1'),
      delivery('2'),
      delivery('3', { subject: 'video-2' }),
      delivery('4', { endpointKey: 'other', endpoint: RECEIVER }),
    ]);
    await service.sweep();
    // Each receiver is swept on its own, at once: the order across receivers is not kept.
    expect(enqueued.sort()).toEqual(['1#0', '3#0', '4#0']);
    expect(await service.attempt('2', 0)).toEqual({ kind: 'skipped', reason: 'waiting' });
    expect(sent).toEqual([]);
    expect(await service.attempt('1', 0)).toEqual({ kind: 'delivered' });
    expect(enqueued.at(-1)).toBe('2#0');
    expect(await service.attempt('2', 0)).toEqual({ kind: 'delivered' });
    expect(table.get('2')!.state).toBe('delivered');
  });

  it('sweeps each receiver a bounded window per pass, moving on, so a backlog costs no more per pass and hides nothing', async () => {
    const down = 'receiver-down';
    const backlog = Array.from({ length: 2 * SWEEP_WINDOW + 200 }, (_, n) =>
      delivery(String(n + 1), { subject: `video-${n}`, endpointKey: down }),
    );
    const { service, table, enqueued, windows } = setUp([
      ...backlog,
      delivery('9001', { subject: 'video-healthy' }),
    ]);
    // The receiver that is down: every delivery waits for its retry, but one.
    for (const row of table.values()) if (row.endpointKey === down) row.nextAttemptAt = Date.now() + HOUR;
    const dueOne = String(2 * SWEEP_WINDOW + 100);
    table.get(dueOne)!.nextAttemptAt = 0;
    const passes: string[][] = [];
    for (let pass = 0; pass < 4; pass += 1) {
      enqueued.length = 0;
      await service.sweep();
      passes.push([...enqueued].sort());
    }
    // The healthy receiver's delivery is found on every pass; the due one of the backlog on the
    // pass whose window holds it; the windows move on and start again after the last.
    expect(passes).toEqual([['9001#0'], ['9001#0'], [`${dueOne}#0`, '9001#0'].sort(), ['9001#0']]);
    const downWindows = windows.filter((window) => window.endpointKey === down);
    expect(downWindows.map((window) => window.afterId)).toEqual([
      '0',
      String(SWEEP_WINDOW),
      String(2 * SWEEP_WINDOW),
      '0',
    ]);
    expect(windows.every((window) => window.limit === SWEEP_WINDOW)).toBe(true);
  });

  it('retries a failed attempt later, and the later event keeps waiting for it', async () => {
    const { service, table, enqueued } = setUp(
      [delivery('1'), delivery('2')],
      [{ ok: false, error: 'HTTP 302 (redirects are not followed)' }],
    );
    expect(await service.attempt('1', 0)).toEqual({
      kind: 'failed',
      error: 'HTTP 302 (redirects are not followed)',
    });
    expect(table.get('1')).toMatchObject({ state: 'pending', attempts: 1 });
    expect(enqueued).toEqual(['1#1 later']);
    await service.sweep();
    expect(enqueued).toEqual(['1#1 later']);
    expect(await service.attempt('1', 0)).toEqual({ kind: 'skipped', reason: 'stale' });
    expect(await service.attempt('1', 1)).toEqual({ kind: 'delivered' });
    expect(table.get('1')).toMatchObject({ state: 'delivered', attempts: 2 });
  });

  it('marks a delivery dead when it still fails 72 hours after its first failure', async () => {
    const { service, table, enqueued } = setUp(
      [delivery('1', { attempts: 30, firstFailedAt: new Date(Date.now() - 72 * HOUR) })],
      [{ ok: false, error: 'no answer within 5000 ms' }],
    );
    expect(await service.attempt('1', 30)).toEqual({ kind: 'dead', error: 'no answer within 5000 ms' });
    expect(table.get('1')).toMatchObject({ state: 'dead', attempts: 31 });
    expect(enqueued).toEqual([]);
  });

  it('sends nothing to a receiver that is no longer configured', async () => {
    const removed = 'http://removed.test/';
    const { service, table, sent } = setUp([
      delivery('1', { endpoint: removed, endpointKey: receiverKey(removed) }),
    ]);
    expect(await service.attempt('1', 0)).toMatchObject({ kind: 'dead' });
    expect(sent).toEqual([]);
    expect(table.get('1')!.state).toBe('dead');
  });

  it('sends with the credentials of the configured URL, which the row does not hold', async () => {
    const configured = 'https://hooks:s3cret@receiver.test/in?token=t0ken';
    const row = delivery('1', { endpoint: shownUrl(configured), endpointKey: receiverKey(configured) });
    const { service, sent } = setUp([row], [], [configured]);
    expect(row.endpoint).toBe('https://receiver.test/in?token=***');
    expect(await service.attempt('1', 0)).toEqual({ kind: 'delivered' });
    expect(sent.map((request) => request.url)).toEqual([configured]);
  });
});
