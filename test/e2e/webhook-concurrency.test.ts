import { Queue } from 'bullmq';
import { receiverKey } from '@app/shared/net/receiver-url';
import { QUEUE_PREFIX, receiverQueueName } from '@app/shared/queue/queues';
import { bootSystem } from '../support/boot';
import { waitFor } from '../support/processes';
import { seedVideos } from '../support/seed';
import { call, token, type System } from '../support/system';
import { startWebhookReceiver, webhookEnv, type WebhookReceiver } from '../support/webhook-receiver';

const owner = token('author-1');
const CONCURRENCY = 2;
const WORKERS = 3;

/** WEBHOOK_CONCURRENCY bounds a receiver's deliveries in flight across every worker process, not per process. */
describe('webhook delivery concurrency', () => {
  let receiver: WebhookReceiver | undefined;
  let system: System;
  const boot = bootSystem({ redis: 'own', system: false });
  afterAll(() => receiver?.close());

  async function deleteAndDeliver(count: number): Promise<void> {
    const ids = await seedVideos(boot.context, count);
    for (const id of ids) {
      expect((await call('DELETE', `${system.api}/api/videos/${id}`, owner)).status).toBe(200);
    }
    const events = (
      await boot.context.dataSource.query<{ id: string }[]>(
        'SELECT id FROM outbox_events WHERE subject IN (?)',
        [ids],
      )
    ).map((row) => row.id);
    expect(events).toHaveLength(ids.length);
    const delivered = receiver!;
    await waitFor(
      'every event delivered',
      () => Promise.resolve(events.every((id) => delivered.validIds().has(id)) || undefined),
      { timeoutMs: 60_000 },
    );
  }

  it('never has more than WEBHOOK_CONCURRENCY deliveries in flight to a slow receiver with three workers, and delivers every event', async () => {
    receiver = await startWebhookReceiver();
    await receiver.setMode({ kind: 'slow', delayMs: 300 });
    system = await boot.start({
      ...webhookEnv([receiver.url]),
      WEBHOOK_CONCURRENCY: String(CONCURRENCY),
      // Well above the receiver's delay: no attempt times out and is retried beside itself.
      WEBHOOK_TIMEOUT_MS: '5000',
      SCHEDULE_CHECK_INTERVAL_MS: '1000',
    });
    for (let n = 1; n < WORKERS; n++) await system.startWorker();

    await deleteAndDeliver(24);
    // Each worker alone would run CONCURRENCY at once: three of them, three times that.
    expect(receiver.peakInFlight).toBe(CONCURRENCY);

    // Redis loses the cap with everything else; the workers' self-check sets it again.
    await boot.redis.flushAll();
    const queue = new Queue(receiverQueueName(receiverKey(receiver.url)), {
      connection: { url: boot.redis.url },
      prefix: QUEUE_PREFIX,
    });
    try {
      await waitFor('the cap set again', async () => (await queue.getGlobalConcurrency()) ?? undefined, {
        timeoutMs: 10_000,
      });
      expect(await queue.getGlobalConcurrency()).toBe(CONCURRENCY);
    } finally {
      await queue.close();
    }
    // Every event still arrives once the cap is back. The peak just after a flush is not bounded:
    // Redis has forgotten which jobs are running, so it counts none of them.
    await deleteAndDeliver(12);
  }, 120_000);
});
