import type { EntityManager } from 'typeorm';
import { fakeOutboxStore } from '@test/fakes/fake-outbox';
import { PRUNE_BATCH, OutboxRetentionService } from './outbox-retention.service';
import type { DeliveryState } from './webhook-delivery.entity';

const DAY = 86_400_000;
const now = new Date('2026-06-01T00:00:00Z');
const daysAgo = (days: number) => new Date(now.getTime() - days * DAY);

function setUp(retentionDays = 7) {
  const store = fakeOutboxStore();
  const service = new OutboxRetentionService(store.repository, { OUTBOX_RETENTION_DAYS: retentionDays });
  let seq = 0;
  /** An event recorded `ageDays` ago, with one delivery per entry of `deliveries` (its state and last attempt). */
  const event = (
    id: string,
    ageDays: number,
    deliveries: [DeliveryState, number | null][] = [],
    authorId = 'author',
  ) => {
    seq += 1;
    store.events.push({ seq, id, authorId, occurredAt: daysAgo(ageDays), erasedAt: null });
    for (const [state, attemptDaysAgo] of deliveries) {
      store.deliveries.push({
        id: store.deliveries.length + 1,
        eventId: id,
        state,
        lastAttemptAt: attemptDaysAgo === null ? null : daysAgo(attemptDaysAgo),
      });
    }
  };
  const eventIds = () => store.events.map((row) => row.id);
  const deliveriesOf = (id: string) =>
    store.deliveries.filter((delivery) => delivery.eventId === id).map((delivery) => delivery.state);
  return { store, service, event, eventIds, deliveriesOf };
}

describe('OutboxRetentionService', () => {
  it('prunes a delivered delivery OUTBOX_RETENTION_DAYS after its delivery, and its event once none is left', async () => {
    const { service, event, eventIds, deliveriesOf } = setUp(7);
    event('old', 20, [
      ['delivered', 8],
      ['delivered', 7.5],
    ]);
    event('half', 20, [
      ['delivered', 8],
      ['delivered', 6],
    ]);
    event('recent', 3, [['delivered', 3]]);

    expect(await service.prune(now)).toEqual({ events: 1, deliveries: 3, complete: true });
    expect(eventIds()).toEqual(['half', 'recent']);
    // An event older than the retention waits for its last delivery's own retention.
    expect(deliveriesOf('half')).toEqual(['delivered']);
  });

  it('keeps a dead delivery (and its event) 30 days after its last attempt, then prunes it', async () => {
    const { service, event, eventIds } = setUp(7);
    event('dead-29', 60, [['dead', 29]]);
    event('dead-31', 60, [['dead', 31]]);

    expect(await service.prune(now)).toEqual({ events: 1, deliveries: 1, complete: true });
    expect(eventIds()).toEqual(['dead-29']);
    expect(await service.prune(new Date(now.getTime() + 2 * DAY))).toMatchObject({ events: 1 });
    expect(eventIds()).toEqual([]);
  });

  it('never prunes a pending delivery or its event, however old', async () => {
    const { service, event, eventIds, deliveriesOf } = setUp(0);
    event('failing', 400, [
      ['pending', 100],
      ['delivered', 100],
    ]);
    event('first-attempt-due', 400, [['pending', null]]);

    expect(await service.prune(now)).toEqual({ events: 0, deliveries: 1, complete: true });
    expect(eventIds()).toEqual(['failing', 'first-attempt-due']);
    expect(deliveriesOf('failing')).toEqual(['pending']);
  });

  it('prunes an event recorded with no receiver after the retention', async () => {
    const { service, event, eventIds } = setUp(7);
    event('unsent-old', 7.01);
    event('unsent-new', 6.99);

    expect(await service.prune(now)).toMatchObject({ events: 1, complete: true });
    expect(eventIds()).toEqual(['unsent-new']);
  });

  it("deletes an erased author's events as soon as their deliveries settle, whatever the retention", async () => {
    const { store, service, event, eventIds, deliveriesOf } = setUp(3650);
    event('delivered', 1, [['delivered', 1]], 'erased');
    event('dead', 1, [['dead', 0.5]], 'erased');
    event('no-receiver', 1, [], 'erased');
    event('on-its-way', 1, [
      ['delivered', 0.5],
      ['pending', null],
    ]);
    event('completed', 0, [['pending', null]], 'erased');
    event('bystander', 1, [['delivered', 1]], 'kept');

    expect(await service.markAuthorErased({} as EntityManager, 'erased', now)).toBe(4);
    expect(await service.prune(now)).toEqual({ events: 3, deliveries: 2, complete: true });
    expect(eventIds()).toEqual(['on-its-way', 'completed', 'bystander']);

    // The receivers still learn of the erasure; its event goes once delivered.
    store.deliveries.find((delivery) => delivery.eventId === 'completed')!.state = 'delivered';
    expect(await service.pruneErased(now)).toEqual({ events: 1, deliveries: 1, complete: true });
    expect(eventIds()).toEqual(['on-its-way', 'bystander']);
    expect(deliveriesOf('on-its-way')).toEqual(['delivered', 'pending']);
  });

  it('marks an author byte for byte: another spelling is another author', async () => {
    const { service, event, store } = setUp();
    event('a', 1, [], 'Alice');
    event('b', 1, [], 'alice');

    expect(await service.markAuthorErased({} as EntityManager, 'alice', now)).toBe(1);
    expect(store.events.map((row) => [row.id, row.erasedAt !== null])).toEqual([
      ['a', false],
      ['b', true],
    ]);
  });

  it('works in batches and stops after its time budget; the next run carries on', async () => {
    const { store, service, event, eventIds } = setUp(7);
    const count = PRUNE_BATCH * 2 + 10;
    for (let n = 0; n < count; n += 1) event(`e${n}`, 30, [['delivered', 30]]);

    const first = await service.prune(now, 0);
    expect(first).toEqual({ events: 0, deliveries: PRUNE_BATCH, complete: false });
    expect(store.statements()).toBe(2);

    const rest = await service.prune(now);
    expect(rest).toEqual({ events: count, deliveries: count - PRUNE_BATCH, complete: true });
    expect(eventIds()).toEqual([]);
  });

  it('stops its walk at the first event within the retention: every later one is newer', async () => {
    const { store, service, event } = setUp(7);
    for (let n = 0; n < PRUNE_BATCH * 3; n += 1) event(`new${n}`, 1);

    expect(await service.prune(now)).toEqual({ events: 0, deliveries: 0, complete: true });
    // The erased walk, two delivery statements, one batch of events: not the three thousand rows.
    expect(store.statements()).toBe(4);
  });
});
