import type { EntityManager } from 'typeorm';
import type { EventToPrune, SettledState } from '@app/shared/events/outbox-retention';
import type { OutboxRetentionRepository } from '@app/shared/events/outbox-retention.repository';
import type { DeliveryState } from '@app/shared/events/webhook-delivery.entity';

export interface FakeEvent {
  seq: number;
  id: string;
  authorId: string;
  occurredAt: Date;
  erasedAt: Date | null;
}

export interface FakeDelivery {
  id: number;
  eventId: string;
  state: DeliveryState;
  lastAttemptAt: Date | null;
}

/**
 * The outbox's two tables as arrays, behind a fake `OutboxRetentionRepository` that answers as
 * the SQL does (recording order, limits, settled deliveries only). `statements` counts its calls.
 */
export function fakeOutboxStore() {
  const events: FakeEvent[] = [];
  const deliveries: FakeDelivery[] = [];
  let statements = 0;
  const view = (event: FakeEvent): EventToPrune => {
    const own = deliveries.filter((delivery) => delivery.eventId === event.id);
    return {
      seq: String(event.seq),
      id: event.id,
      occurredAt: event.occurredAt,
      erased: event.erasedAt !== null,
      deliveries: own.length,
      pending: own.filter((delivery) => delivery.state === 'pending').length,
    };
  };
  const after = (afterSeq: string, limit: number, keep: (event: FakeEvent) => boolean) => {
    statements += 1;
    return Promise.resolve(
      events
        .filter((event) => event.seq > Number(afterSeq) && keep(event))
        .sort((a, b) => a.seq - b.seq)
        .slice(0, limit)
        .map(view),
    );
  };
  const remove = <T>(rows: T[], goes: (row: T) => boolean) => {
    const before = rows.length;
    rows.splice(0, rows.length, ...rows.filter((row) => !goes(row)));
    return before - rows.length;
  };
  const repository = {
    markAuthorErased: (_m: EntityManager, authorId: string, now: Date) => {
      let marked = 0;
      events.forEach((event, n) => {
        if (event.authorId !== authorId || event.erasedAt !== null) return;
        // A new object, so that `fakeTransactions` can put the old one back on a rollback.
        events[n] = { ...event, erasedAt: now };
        marked += 1;
      });
      return Promise.resolve(marked);
    },
    eventsAfter: (afterSeq: string, limit: number) => after(afterSeq, limit, () => true),
    erasedEventsAfter: (afterSeq: string, limit: number) =>
      after(afterSeq, limit, (event) => event.erasedAt !== null),
    deleteSettled: (state: SettledState, before: Date, limit: number) => {
      statements += 1;
      const due = deliveries
        .filter((delivery) => delivery.state === state && delivery.lastAttemptAt! < before)
        .sort((a, b) => a.lastAttemptAt!.getTime() - b.lastAttemptAt!.getTime())
        .slice(0, limit);
      return Promise.resolve(remove(deliveries, (delivery) => due.includes(delivery)));
    },
    deleteEvents: (ids: string[]) => {
      if (ids.length === 0) return Promise.resolve({ events: 0, deliveries: 0 });
      statements += 1;
      const deleted = remove(
        deliveries,
        (delivery) => ids.includes(delivery.eventId) && delivery.state !== 'pending',
      );
      const left = new Set(deliveries.map((delivery) => delivery.eventId));
      return Promise.resolve({
        events: remove(events, (event) => ids.includes(event.id) && !left.has(event.id)),
        deliveries: deleted,
      });
    },
  };
  return {
    events,
    deliveries,
    statements: () => statements,
    repository: repository as unknown as OutboxRetentionRepository,
  };
}
