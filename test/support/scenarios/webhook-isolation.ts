import { sleep, waitFor } from '../processes';
import { startOwnRedis } from '../redis-server';
import { seedMany } from '../seed';
import { call, startSystem, token } from '../system';
import { openTestContext } from '../test-context';
import { deliveryOrderViolations, startWebhookReceiver, webhookEnv } from '../webhook-receiver';
import type { ScenarioReport } from './report';

export interface WebhookIsolationOptions {
  /** Videos soft-deleted then restored through the API: two events each, to both receivers. */
  videos: number;
  /** Changes per second, spread evenly over the run. */
  changesPerSecond: number;
  /** The goal for the healthy receiver's p99 lag (event recorded → received). Checked only when given (the chaos row). */
  maxP99LagMs?: number;
  settleTimeoutMs: number;
}

/**
 * One receiver that takes every request and never answers, beside a healthy one, under a steady
 * stream of events (issue 29). Each receiver's deliveries run on a queue of their own, so the dead
 * one holds only its own slots (WEBHOOK_CONCURRENCY) and the sweep reads each receiver's window
 * apart: the healthy receiver's lag (event recorded → first arrival) is what it would be alone.
 * Delivery settings are the defaults (5 s per attempt, retries from 5 s, a sweep every second).
 */
export async function webhookIsolation(options: WebhookIsolationOptions): Promise<ScenarioReport> {
  const context = await openTestContext();
  const redis = await startOwnRedis();
  const healthy = await startWebhookReceiver();
  const dead = await startWebhookReceiver();
  await dead.setMode({ kind: 'hang' });
  const system = await startSystem({
    ...webhookEnv([healthy.url, dead.url]),
    REDIS_URL: redis.url,
    // The defaults, not webhookEnv's quick ones: a dead receiver costs what it costs in production.
    WEBHOOK_TIMEOUT_MS: '5000',
    WEBHOOK_RETRY_BASE_MS: '5000',
    WEBHOOK_RETRY_MAX_MS: '7200000',
    WEBHOOK_SWEEP_INTERVAL_MS: '1000',
  });
  const violations: string[] = [];
  try {
    await context.reset();
    const ids = await seedMany(context, options.videos, { objectsPerVideo: 0 });
    const owner = token('author-1');
    const started = Date.now();
    const pause = 1_000 / options.changesPerSecond;
    // Each video: a soft delete, then its restore, each change at its even place in the stream.
    for (const [n, id] of ids.entries()) {
      for (const [k, [method, path]] of (
        [
          ['DELETE', `/api/videos/${id}`],
          ['POST', `/api/videos/${id}/restore`],
        ] as const
      ).entries()) {
        await sleep(Math.max(0, started + (2 * n + k) * pause - Date.now()));
        const { status } = await call(method, `${system.api}${path}`, owner);
        if (status !== 200) violations.push(`${method} ${path}: ${status}`);
      }
    }
    const streamSeconds = (Date.now() - started) / 1000;
    const events = await context.dataSource.query<{ id: string; subject: string; occurred_at: Date }[]>(
      // This run's videos only: a test before may still record an event of its own after the reset.
      'SELECT id, subject, occurred_at FROM outbox_events WHERE subject IN (?) ORDER BY seq',
      [ids],
    );
    await waitFor(
      'every event at the healthy receiver',
      () => {
        const valid = healthy.validIds();
        return Promise.resolve(events.every((event) => valid.has(event.id)) ? true : undefined);
      },
      { timeoutMs: options.settleTimeoutMs, intervalMs: 250 },
    ).catch((error: unknown) => violations.push(String(error)));

    const arrival = new Map<string, number>();
    for (const received of healthy.received) {
      if (received.valid && !arrival.has(received.id)) arrival.set(received.id, received.at);
    }
    const lags = events
      .filter((event) => arrival.has(event.id))
      .map((event) => arrival.get(event.id)! - event.occurred_at.getTime())
      .sort((a, b) => a - b);
    const quantile = (q: number) => lags[Math.min(lags.length - 1, Math.floor(q * lags.length))] ?? NaN;
    const order = deliveryOrderViolations(healthy, events);
    const [counts] = await context.dataSource.query<
      { delivered: string; pending: string; dead: string; attempts: string }[]
    >(
      `SELECT SUM(state = 'delivered') AS delivered, SUM(state = 'pending') AS pending, SUM(state = 'dead') AS dead,
         SUM(attempts) AS attempts FROM webhook_deliveries WHERE endpoint LIKE ?`,
      [`${dead.url}%`],
    );
    const missing = events.length - lags.length;
    if (missing > 0) violations.push(`${missing} events never reached the healthy receiver`);
    violations.push(...order);
    if (Number(counts!.delivered) > 0)
      violations.push(`${counts!.delivered} deliveries to the dead receiver delivered`);
    if (Number(counts!.dead) > 0)
      violations.push(`${counts!.dead} deliveries to the dead receiver dead already`);
    if (dead.received.length === 0) violations.push('the dead receiver was never tried');
    if (options.maxP99LagMs !== undefined && quantile(0.99) > options.maxP99LagMs) {
      violations.push(`healthy receiver p99 lag ${quantile(0.99)} ms`);
    }
    const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    return {
      load: `${events.length} events (${options.videos} videos soft-deleted then restored through the API) over ${streamSeconds.toFixed(0)} s, to two receivers; default delivery settings (5 s per attempt, retries from 5 s, WEBHOOK_CONCURRENCY 4, sweep every 1 s)`,
      faults: 'one receiver takes every request and never answers (each attempt ends at the 5 s deadline)',
      expected: `the healthy receiver gets every event, in order per video${options.maxP99LagMs === undefined ? '' : `, p99 lag (recorded → received) under ${options.maxP99LagMs / 1000} s`}; the dead one's deliveries stay pending, none lost`,
      observed: `healthy: ${lags.length} of ${events.length} events, lag p50 ${seconds(quantile(0.5))}, p99 ${seconds(quantile(0.99))}, max ${seconds(quantile(1))}, order violations ${order.length}; dead: ${dead.received.length} requests taken, never answered; its deliveries ${counts!.pending ?? 0} pending (${counts!.attempts ?? 0} attempts), ${counts!.delivered ?? 0} delivered, ${counts!.dead ?? 0} dead`,
      violations,
    };
  } finally {
    await system.stop();
    await healthy.close();
    await dead.close();
    await redis.stop();
    await context.close();
  }
}
