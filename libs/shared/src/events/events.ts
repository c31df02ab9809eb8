import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { EVENT_PAYLOADS, type EventData, type EventType } from './events.schema';

export { EVENT_TYPES, type EventData, type EventType } from './events.schema';

/** An event about to be recorded: `subject` is what its order is kept for (a video id, an erasure id). */
export type NewEvent = {
  [T in EventType]: { type: T; subject: string; data: EventData[T]; occurredAt: Date };
}[EventType];

/** An event as recorded: its id (the `webhook-id`) and the exact body every receiver gets. */
export interface RecordedEvent {
  id: string;
  type: EventType;
  subject: string;
  /** Who the event is about (every event names its author): an erasure finds the event by it. */
  authorId: string;
  body: string;
  occurredAt: Date;
}

/**
 * Gives the event its id and its body, `{ type, timestamp, data }`, checked against its schema
 * (events.schema.ts): an event that does not match is a programming error, thrown here, so the
 * transaction that was to record it writes nothing.
 */
export function recordedEvent(event: NewEvent, id: string = randomUUID()): RecordedEvent {
  const payload = { type: event.type, timestamp: event.occurredAt.toISOString(), data: event.data };
  const checked = EVENT_PAYLOADS[event.type].safeParse(payload);
  if (!checked.success) {
    throw new Error(`${event.type} event does not match its schema: ${z.prettifyError(checked.error)}`);
  }
  return {
    id,
    type: event.type,
    subject: event.subject,
    authorId: event.data.authorId,
    body: JSON.stringify(payload),
    occurredAt: event.occurredAt,
  };
}
