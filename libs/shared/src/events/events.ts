import { randomUUID } from 'node:crypto';
import type { DeletionReason, NextState, VideoSnapshot } from '../video/video-lifecycle';
import { VideoState } from '../video/video-state';

/** What each event says (docs/contract.md §10.4). Times are ISO 8601 in UTC. */
export interface EventData {
  'video.soft_deleted': {
    videoId: string;
    authorId: string;
    requestedBy: string | null;
    deletedAt: string;
    purgeAt: string;
  };
  'video.restored': { videoId: string; authorId: string; requestedBy: string | null; restoredAt: string };
  /** A permanent delete, or a retention purge the worker has claimed: the video is gone for every caller. */
  'video.deletion_started': {
    videoId: string;
    authorId: string;
    reason: DeletionReason;
    requestedBy: string | null;
    startedAt: string;
  };
  /** Media, index document and row are gone; the audit record keeps the receipt. */
  'video.purged': {
    videoId: string;
    authorId: string;
    reason: DeletionReason;
    requestedBy: string | null;
    deletedAt: string | null;
    purgedAt: string;
    objectsRemoved: number;
  };
  /** Every video of an erasure request has reached its end state. */
  'erasure.completed': {
    erasureId: string;
    authorId: string;
    mode: 'soft' | 'permanent';
    total: number;
    requestedBy: string | null;
    startedAt: string;
    completedAt: string;
  };
}

export type EventType = keyof EventData;

export const EVENT_TYPES = [
  'video.soft_deleted',
  'video.restored',
  'video.deletion_started',
  'video.purged',
  'erasure.completed',
] as const satisfies readonly EventType[];

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

/** Gives the event its id and its body, in the shape Standard Webhooks recommends: `{ type, timestamp, data }`. */
export function recordedEvent(event: NewEvent, id: string = randomUUID()): RecordedEvent {
  const body = JSON.stringify({
    type: event.type,
    timestamp: event.occurredAt.toISOString(),
    data: event.data,
  });
  return {
    id,
    type: event.type,
    subject: event.subject,
    authorId: event.data.authorId,
    body,
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
