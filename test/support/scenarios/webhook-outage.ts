import { sleep, waitFor, type RunningProcess } from '../processes';
import type { OwnRedis } from '../redis-server';
import { seedVideos } from '../seed';
import { call, startSystem, token, type System } from '../system';
import type { TestContext } from '../test-context';
import { deliveryOrderViolations, startWebhookReceiver, webhookEnv } from '../webhook-receiver';
import type { ScenarioReport } from './report';

export interface WebhookOutageOptions {
  videos: number;
  /** How long the receiver refuses connections after the changes start. */
  downMs: number;
  /** How long it then answers slowly (a share of answers after the sender's deadline). */
  slowMs: number;
  /** Worker SIGKILLs while it delivers to the slow receiver (one Redis FLUSHALL with the first). */
  kills: number;
  /** The sender's deadline per attempt; slow answers take up to 1.5 times it. */
  timeoutMs: number;
  /** The longest wait between two attempts of one delivery (so the end of the outage is noticed soon). */
  retryMaxMs: number;
  settleTimeoutMs: number;
}

/**
 * A receiver down for a while and then slow, with the worker killed while it delivers and Redis
 * flushed once: every event must reach the receiver with a valid signature, in order per video,
 * and MySQL must show every delivery delivered.
 */
export async function webhookOutage(
  context: TestContext,
  redis: OwnRedis,
  options: WebhookOutageOptions,
): Promise<ScenarioReport> {
  const receiver = await startWebhookReceiver();
  let system: System | undefined;
  try {
    await receiver.setMode({ kind: 'down' });
    const env = {
      ...webhookEnv([receiver.url]),
      REDIS_URL: redis.url,
      WEBHOOK_TIMEOUT_MS: String(options.timeoutMs),
      WEBHOOK_RETRY_MAX_MS: String(options.retryMaxMs),
    };
    system = await startSystem(env, { worker: false });
    let worker: RunningProcess = await system.startWorker();
    const ids = await seedVideos(context, options.videos, { objectsPerVideo: 1 });
    const owner = token('author-1');
    const started = Date.now();
    // Each video: soft delete; every other one restored; every fifth then deleted for good.
    for (const [n, id] of ids.entries()) {
      await expectOk(call('DELETE', `${system.api}/api/videos/${id}`, owner));
      if (n % 2 === 0) await expectOk(call('POST', `${system.api}/api/videos/${id}/restore`, owner));
      if (n % 5 === 0) await expectOk(call('DELETE', `${system.api}/api/videos/${id}?permanent=true`, owner));
    }
    await sleep(Math.max(0, options.downMs - (Date.now() - started)));
    await receiver.setMode({ kind: 'slow', delayMs: () => Math.random() * options.timeoutMs * 1.5 });

    const killEvery = options.slowMs / (options.kills + 1);
    let kills = 0;
    for (; kills < options.kills; kills += 1) {
      await sleep(killEvery);
      await worker.stop('SIGKILL');
      if (kills === 0) await redis.flushAll();
      worker = await system.startWorker();
    }
    await sleep(killEvery);
    await receiver.setMode({ kind: 'up' });

    await waitFor(
      'every deletion finished and every delivery delivered',
      async () => {
        const [row] = await context.dataSource.query<{ n: string }[]>(
          `SELECT (SELECT COUNT(*) FROM webhook_deliveries WHERE state <> 'delivered')
             + (SELECT COUNT(*) FROM videos WHERE id IN (?) AND state = 'deleting') AS n`,
          [ids],
        );
        return Number(row!.n) === 0 ? true : undefined;
      },
      { timeoutMs: options.settleTimeoutMs, intervalMs: 500 },
    ).catch(() => undefined);
    const events: { id: string; subject: string }[] = await context.dataSource.query(
      'SELECT id, subject FROM outbox_events WHERE subject IN (?) ORDER BY seq',
      [ids],
    );

    const [counts] = await context.dataSource.query<
      { delivered: string; dead: string; pending: string; maxAttempts: number }[]
    >(
      `SELECT SUM(state = 'delivered') AS delivered, SUM(state = 'dead') AS dead, SUM(state = 'pending') AS pending,
         MAX(attempts) AS maxAttempts FROM webhook_deliveries`,
    );
    const valid = receiver.validIds();
    const missing = events.filter((event) => !valid.has(event.id));
    const invalid = receiver.received.filter((event) => !event.valid).length;
    const repeats = receiver.received.length - new Set(receiver.received.map((event) => event.id)).size;
    const order = deliveryOrderViolations(receiver, events);
    const violations = [
      ...(missing.length ? [`${missing.length} events never received`] : []),
      ...(Number(counts!.delivered) !== events.length
        ? [`${counts!.delivered} of ${events.length} delivered in MySQL`]
        : []),
      ...(invalid ? [`${invalid} requests with an invalid signature`] : []),
      ...order,
    ];
    return {
      load: `${options.videos} videos: ${events.length} events (soft deletes, restores, permanent deletes and purges)`,
      faults: `receiver down ${Math.round(options.downMs / 1000)} s, then slow for ${Math.round(options.slowMs / 1000)} s (answers within 0–${(options.timeoutMs * 1.5) / 1000} s, deadline ${options.timeoutMs / 1000} s); worker SIGKILL ${kills}× while delivering, Redis FLUSHALL once`,
      expected: 'every event delivered with a valid signature, in order per video; none lost, none dead',
      observed: `${valid.size} of ${events.length} events received with valid signatures (${repeats} repeats, ${invalid} invalid); MySQL: ${counts!.delivered} delivered, ${counts!.pending ?? 0} pending, ${counts!.dead ?? 0} dead, at most ${counts!.maxAttempts} attempts; order violations ${order.length}`,
      violations,
    };
  } finally {
    await system?.stop();
    await receiver.close();
  }
}

async function expectOk(response: Promise<{ status: number }>): Promise<void> {
  const { status } = await response;
  if (status !== 200) throw new Error(`expected 200, got ${status}`);
}
