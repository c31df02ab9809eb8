import { randomUUID } from 'node:crypto';
import { recordedEvent } from '@app/shared/events/events';
import { endpointOf } from '@app/shared/net/receiver-url';
import { OutboxRetentionService } from '@app/shared/events/outbox-retention.service';
import type { DeliveryState } from '@app/shared/events/webhook-delivery.entity';
import { openTestContext, type TestContext } from '../support/test-context';

const DAY = 86_400_000;
const RECEIVERS = [endpointOf('http://receiver.test/a'), endpointOf('http://receiver.test/b')];

/** The outbox's retention (docs/contract.md §10.4) on the real MySQL: rows, times and statements as served. */
describe('OutboxRetentionService on MySQL', () => {
  let context: TestContext;
  let retention: OutboxRetentionService;
  const ids = new Map<string, string>();

  beforeAll(async () => {
    context = await openTestContext({ OUTBOX_RETENTION_DAYS: '7' });
    retention = context.get(OutboxRetentionService);
  }, 60_000);

  beforeEach(async () => {
    await context.reset();
    ids.clear();
  });

  afterAll(() => context.close());

  const ago = (days: number) => new Date(Date.now() - days * DAY);

  /** Records an event about `subject` as the outbox does, `ageDays` old, for `receivers` of the two. */
  async function record(
    name: string,
    {
      ageDays,
      authorId = 'author',
      subject = name,
      receivers = 2,
    }: Partial<Record<'ageDays' | 'receivers', number>> &
      Partial<Record<'authorId' | 'subject', string>> & { ageDays: number },
  ): Promise<void> {
    const id = randomUUID();
    ids.set(name, id);
    const event = recordedEvent(
      {
        type: 'video.restored',
        subject,
        occurredAt: ago(ageDays),
        data: { videoId: subject, authorId, requestedBy: authorId, restoredAt: ago(ageDays).toISOString() },
      },
      id,
    );
    await context.dataSource.transaction((manager) =>
      context.outbox.insert(manager, [event], RECEIVERS.slice(0, receivers)),
    );
  }

  /** Sets every delivery of the event to `state`, last attempted `daysAgo`. */
  async function settle(name: string, state: DeliveryState, daysAgo: number): Promise<void> {
    const at = ago(daysAgo);
    await context.dataSource.query(
      `UPDATE webhook_deliveries SET state = ?, attempts = 1, last_attempt_at = ?,
         delivered_at = IF(? = 'delivered', ?, NULL), last_error = IF(? = 'delivered', NULL, 'HTTP 500')
       WHERE event_id = ?`,
      [state, at, state, at, state, ids.get(name)],
    );
  }

  async function left(): Promise<{ events: string[]; deliveries: Record<string, number> }> {
    const names = new Map([...ids].map(([name, id]) => [id, name]));
    const events: { id: string }[] = await context.dataSource.query(
      'SELECT id FROM outbox_events ORDER BY seq',
    );
    const deliveries: { event_id: string; n: string }[] = await context.dataSource.query(
      'SELECT event_id, COUNT(*) AS n FROM webhook_deliveries GROUP BY event_id',
    );
    return {
      events: events.map((row) => names.get(row.id)!),
      deliveries: Object.fromEntries(deliveries.map((row) => [names.get(row.event_id)!, Number(row.n)])),
    };
  }

  it('prunes old delivered and dead deliveries with their events; keeps recent, pending and dead-for-less-than-30-days', async () => {
    await record('delivered-8d', { ageDays: 9 });
    await settle('delivered-8d', 'delivered', 8);
    await record('delivered-6d', { ageDays: 9 });
    await settle('delivered-6d', 'delivered', 6);
    await record('dead-31d', { ageDays: 40 });
    await settle('dead-31d', 'dead', 31);
    await record('dead-29d', { ageDays: 40 });
    await settle('dead-29d', 'dead', 29);
    await record('pending-1y', { ageDays: 365 });
    await record('failing-1y', { ageDays: 365 });
    await context.dataSource.query(
      'UPDATE webhook_deliveries SET attempts = 9, last_attempt_at = ? WHERE event_id = ?',
      [ago(300), ids.get('failing-1y')],
    );
    await record('no-receiver-8d', { ageDays: 8, receivers: 0 });
    await record('no-receiver-6d', { ageDays: 6, receivers: 0 });

    expect(await retention.prune()).toEqual({ events: 3, deliveries: 4, complete: true });
    expect(await left()).toEqual({
      events: ['delivered-6d', 'dead-29d', 'pending-1y', 'failing-1y', 'no-receiver-6d'],
      deliveries: { 'delivered-6d': 2, 'dead-29d': 2, 'pending-1y': 2, 'failing-1y': 2 },
    });
    // A second run finds nothing more.
    expect(await retention.prune()).toEqual({ events: 0, deliveries: 0, complete: true });
  });

  it('ends a dead delivery after 30 days: the later events of its subject to that receiver then go', async () => {
    await record('dead', { ageDays: 40, subject: 'video-1', receivers: 1 });
    await settle('dead', 'dead', 31);
    await record('held-back', { ageDays: 35, subject: 'video-1', receivers: 1 });
    // What the webhook sweep would send to that receiver now.
    const due = async () =>
      (await context.outbox.sweepWindow(RECEIVERS[0]!.key, '0', 10, new Date())).filter((d) => d.ready);
    expect(await due()).toEqual([]);

    await retention.prune();
    const [sent] = await due();
    const [heldBack]: { id: string }[] = await context.dataSource.query(
      'SELECT id FROM webhook_deliveries WHERE event_id = ?',
      [ids.get('held-back')],
    );
    expect(sent?.id).toBe(heldBack!.id);
  });

  it("deletes an erased author's settled events at once, whatever the retention, and the rest once they settle", async () => {
    await record('delivered', { ageDays: 1, authorId: 'erased' });
    await settle('delivered', 'delivered', 1);
    await record('dead', { ageDays: 1, authorId: 'erased' });
    await settle('dead', 'dead', 0.5);
    await record('unsent', { ageDays: 0, authorId: 'erased', receivers: 0 });
    await record('pending', { ageDays: 0, authorId: 'erased' });
    await record('other-spelling', { ageDays: 1, authorId: 'Erased' });
    await settle('other-spelling', 'delivered', 1);
    await record('bystander', { ageDays: 1, authorId: 'kept' });
    await settle('bystander', 'delivered', 1);

    const marked = await context.dataSource.transaction((manager) =>
      retention.markAuthorErased(manager, 'erased', new Date()),
    );
    expect(marked).toBe(4);
    expect(await retention.pruneErased()).toEqual({ events: 3, deliveries: 4, complete: true });
    expect(await left()).toEqual({
      events: ['pending', 'other-spelling', 'bystander'],
      deliveries: { pending: 2, 'other-spelling': 2, bystander: 2 },
    });

    // One receiver has it; the event waits for the other.
    const [first] = await context.dataSource.query<{ id: string }[]>(
      'SELECT id FROM webhook_deliveries WHERE event_id = ? ORDER BY id LIMIT 1',
      [ids.get('pending')],
    );
    await context.outbox.markDelivered(first!.id, 0, new Date());
    await retention.prune();
    expect((await left()).deliveries.pending).toBe(2);
    await settle('pending', 'delivered', 0);
    expect(await retention.prune()).toMatchObject({ events: 1, deliveries: 2 });
    const rows: { n: string }[] = await context.dataSource.query(
      'SELECT COUNT(*) AS n FROM outbox_events WHERE author_id = ? OR body COLLATE utf8mb4_bin LIKE ?',
      ['erased', '%"erased"%'],
    );
    expect(Number(rows[0]!.n)).toBe(0);
  });

  it('records the author of every event in its own column', async () => {
    await record('one', { ageDays: 0, authorId: 'ünïcode-Author' });
    const [row] = await context.dataSource.query<{ author_id: string }[]>(
      'SELECT author_id FROM outbox_events WHERE id = ?',
      [ids.get('one')],
    );
    expect(row!.author_id).toBe('ünïcode-Author');
  });
});
