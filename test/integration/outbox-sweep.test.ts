import { recordedEvent } from '@app/shared/events/events';
import { NEXT_PENDING_RECEIVER_SQL, SWEEP_WINDOW_SQL } from '@app/shared/events/outbox.repository';
import { endpointOf } from '@app/shared/net/receiver-url';
import { openTestContext, type TestContext } from '../support/test-context';

const DOWN = endpointOf('http://receiver.test/down');
const HEALTHY = endpointOf('http://receiver.test/healthy');

/** The webhook sweep's read on the real MySQL: its window, its answers, and the plan it runs by. */
describe('the webhook sweep window on MySQL', () => {
  let context: TestContext;

  beforeAll(async () => {
    context = await openTestContext();
    await context.reset();
    // Three events about each of 40 videos, to both receivers, recorded a minute ago.
    const occurredAt = new Date(Date.now() - 60_000);
    const events = Array.from({ length: 120 }, (_, n) =>
      recordedEvent({
        type: 'video.restored',
        subject: `video-${n % 40}`,
        occurredAt,
        data: {
          videoId: `video-${n % 40}`,
          authorId: 'a',
          requestedBy: 'a',
          restoredAt: occurredAt.toISOString(),
        },
      }),
    );
    await context.dataSource.transaction((manager) =>
      context.outbox.insert(manager, events, [DOWN, HEALTHY]),
    );
    // The receiver that is down: its first delivery of video-0 waits for a retry an hour away.
    await context.dataSource.query(
      `UPDATE webhook_deliveries SET attempts = 3, next_attempt_at = NOW(3) + INTERVAL 1 HOUR
       WHERE endpoint_key = ? AND subject = 'video-0' ORDER BY id LIMIT 1`,
      [DOWN.key],
    );
  }, 60_000);

  afterAll(() => context.close());

  it('names every receiver with pending deliveries', async () => {
    expect((await context.outbox.pendingReceivers()).sort()).toEqual([DOWN.key, HEALTHY.key].sort());
  });

  it('reads one receiver’s window after a position: each video’s first due delivery is ready, the rest wait', async () => {
    const all = await context.outbox.sweepWindow(DOWN.key, '0', 1_000, new Date());
    expect(all).toHaveLength(120);
    // 40 videos, each with a first delivery; video-0's is not due yet, so none of its three is ready.
    expect(all.filter((delivery) => delivery.ready)).toHaveLength(39);

    const first = await context.outbox.sweepWindow(DOWN.key, '0', 50, new Date());
    const next = await context.outbox.sweepWindow(DOWN.key, first.at(-1)!.id, 50, new Date());
    expect(first).toHaveLength(50);
    expect(next).toHaveLength(50);
    expect(Number(next[0]!.id)).toBeGreaterThan(Number(first.at(-1)!.id));
    expect([...first, ...next].map((delivery) => delivery.id)).toEqual(all.slice(0, 100).map((d) => d.id));
  });

  it('reads the window through idx_webhook_deliveries_receiver and each order check through the order index', async () => {
    const plan = await context.dataSource.query<
      { table: string; key: string | null; type: string; Extra: string | null }[]
    >(`EXPLAIN ${SWEEP_WINDOW_SQL}`, [new Date(), DOWN.key, '0', 500]);
    const accesses = plan.map((row) => `${row.table}: ${row.type} ${row.key}`);
    expect(accesses).toContain('p: range idx_webhook_deliveries_receiver');
    // Read in the index's order from the position, up to the limit: never the whole receiver sorted.
    expect(plan.find((row) => row.table === 'p')?.Extra ?? '').not.toMatch(/filesort/);
    expect(
      accesses.some((access) => access.startsWith('e:') && access.endsWith('idx_webhook_deliveries_order')),
    ).toBe(true);
    expect(plan.every((row) => row.table !== 'p' || row.type !== 'ALL')).toBe(true);
  });

  it('finds each receiver with one probe of the same index', async () => {
    const [plan] = await context.dataSource.query<{ key: string | null; type: string; key_len: string }[]>(
      `EXPLAIN ${NEXT_PENDING_RECEIVER_SQL}`,
      [''],
    );
    expect(plan).toMatchObject({ type: 'range', key: 'idx_webhook_deliveries_receiver' });
    // On both its parts (state and receiver), not a ref on state that reads every receiver before.
    expect(Number(plan!.key_len)).toBeGreaterThan(66);
  });
});
