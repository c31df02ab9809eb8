import type { NewEvent } from '../events/events';
import type { DeletionReason, NextState, VideoSnapshot } from './video-lifecycle';
import { VideoState } from './video-state';

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
