import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { DeletionReason, NextState, VideoSnapshot } from '../video/video-lifecycle';
import { VideoState } from '../video/video-state';
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

/** The event a committed change of a video's state reports (soft delete, restore, deletion start). */
export function videoChangeEvent(
  before: Pick<VideoSnapshot, 'id' | 'authorId'>,
  next: NextState,
  requestedBy: string | null,
  now: Date,
): NewEvent {
  const common = { videoId: before.id, authorId: before.authorId, requestedBy };
  switch (next.state) {
    case VideoState.SoftDeleted:
      return {
        type: 'video.soft_deleted',
        subject: before.id,
        occurredAt: now,
        data: { ...common, deletedAt: iso(next.deletedAt ?? now), purgeAt: iso(next.purgeAt ?? now) },
      };
    case VideoState.Active:
      return {
        type: 'video.restored',
        subject: before.id,
        occurredAt: now,
        data: { ...common, restoredAt: iso(now) },
      };
    case VideoState.Deleting:
      return {
        type: 'video.deletion_started',
        subject: before.id,
        occurredAt: now,
        data: {
          ...common,
          reason: next.deletionReason ?? 'permanent',
          requestedBy: next.deletionRequestedBy,
          startedAt: iso(now),
        },
      };
  }
}

/** The event of a finished deletion: media, index document and row gone, the audit record written. */
export function videoPurgedEvent(
  video: Pick<VideoSnapshot, 'id' | 'authorId' | 'deletedAt'> & {
    deletionReason: DeletionReason | null;
    deletionRequestedBy: string | null;
  },
  objectsRemoved: number,
  purgedAt: Date,
): NewEvent {
  return {
    type: 'video.purged',
    subject: video.id,
    occurredAt: purgedAt,
    data: {
      videoId: video.id,
      authorId: video.authorId,
      reason: video.deletionReason ?? 'permanent',
      requestedBy: video.deletionRequestedBy,
      deletedAt: video.deletedAt ? iso(video.deletedAt) : null,
      purgedAt: iso(purgedAt),
      objectsRemoved,
    },
  };
}

function iso(date: Date): string {
  return date.toISOString();
}
