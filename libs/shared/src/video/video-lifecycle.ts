import { DAY_MS } from '../util/time';
import { VideoState } from './video-state';

/**
 * The one state machine of a video (docs/contract.md §2, §6, §8), as pure functions: the API and the worker
 * both call it, so "what may happen to a video, by whom, and what follows" is decided in one place.
 *
 *   active ──soft delete──▶ soft_deleted ──purge due──▶ deleting ──worker──▶ (row gone, audit kept)
 *     ▲                         │  │                        ▲
 *     └────────restore──────────┘  └──permanent delete──────┘
 *   active ──permanent delete──▶ deleting
 */

export type DeletionReason = 'permanent' | 'retention';

/** The fields of a row the rules look at. */
export interface VideoSnapshot {
  id: string;
  authorId: string;
  state: VideoState;
  deletedAt: Date | null;
  purgeAt: Date | null;
  /** Why and by whom a deletion under way was asked for: kept until its audit record says it. */
  deletionReason?: DeletionReason | null;
  deletionRequestedBy?: string | null;
}

export interface Actor {
  sub: string;
  roles: string[];
}

export type Command =
  | { type: 'soft_delete'; retentionDays: number | undefined; defaultRetentionDays: number }
  | { type: 'permanent_delete' }
  | { type: 'restore' }
  | { type: 'claim_purge' };

/** What the row becomes. */
export interface NextState {
  state: VideoState;
  deletedAt: Date | null;
  purgeAt: Date | null;
  deletionReason: DeletionReason | null;
  deletionRequestedBy: string | null;
}

/** What must follow the commit; queue jobs only make it prompt, the row already holds the intent. */
export type Effect = 'schedule_purge' | 'enqueue_deletion' | 'cancel_purge';

export type Decision =
  | { kind: 'not_found' }
  | { kind: 'forbidden' }
  /** Nothing to change: an idempotent repeat, or a purge that is not (or no longer) due. */
  | { kind: 'unchanged'; current: NextState }
  | { kind: 'change'; next: NextState; effects: Effect[] };

export function isAdmin(actor: Actor): boolean {
  return actor.roles.includes('admin');
}

export function mayActOn(actor: Actor, video: Pick<VideoSnapshot, 'authorId'>): boolean {
  return isAdmin(actor) || actor.sub === video.authorId;
}

/**
 * The one rule of when a retention purge is due: a soft-deleted video whose purge date has passed.
 * `PURGE_DUE_SQL` is the same rule for queries that find such rows.
 */
export function isPurgeDue(video: Pick<VideoSnapshot, 'state' | 'purgeAt'>, now: Date): boolean {
  return video.state === VideoState.SoftDeleted && video.purgeAt !== null && video.purgeAt <= now;
}

/** `isPurgeDue` as a condition on the `videos` table, with its parameters for a given moment. */
export function purgeDueSql(now: Date): { where: string; parameters: [VideoState, Date] } {
  return { where: 'state = ? AND purge_at <= ?', parameters: [VideoState.SoftDeleted, now] };
}

function snapshotState(video: VideoSnapshot): NextState {
  return {
    state: video.state,
    deletedAt: video.deletedAt,
    purgeAt: video.purgeAt,
    deletionReason: video.deletionReason ?? null,
    deletionRequestedBy: video.deletionRequestedBy ?? null,
  };
}

/**
 * Decides a command against the row as it is now (read under a row lock). `actor` is null for the
 * worker's own commands.
 */
export function decide(
  video: VideoSnapshot | null,
  command: Command,
  actor: Actor | null,
  now: Date,
): Decision {
  // A video being deleted is already gone for every caller (docs/contract.md §6: further DELETE or restore → 404).
  if (!video || video.state === VideoState.Deleting) {
    return command.type === 'claim_purge' && video
      ? { kind: 'unchanged', current: snapshotState(video) }
      : { kind: 'not_found' };
  }
  if (actor && !mayActOn(actor, video)) return { kind: 'forbidden' };
  const current = snapshotState(video);

  switch (command.type) {
    case 'soft_delete': {
      const days = command.retentionDays ?? command.defaultRetentionDays;
      if (video.state === VideoState.Active) {
        return {
          kind: 'change',
          next: {
            ...current,
            state: VideoState.SoftDeleted,
            deletedAt: now,
            purgeAt: new Date(now.getTime() + days * DAY_MS),
            // The purge at the end of retention is this caller's deletion: its receipt and audit name them.
            deletionReason: 'retention',
            deletionRequestedBy: actor?.sub ?? null,
          },
          effects: ['schedule_purge'],
        };
      }
      // Already soft-deleted: deletedAt keeps its value; an explicit retention recomputes the purge date.
      if (command.retentionDays === undefined || !video.deletedAt) return { kind: 'unchanged', current };
      const purgeAt = new Date(video.deletedAt.getTime() + command.retentionDays * DAY_MS);
      if (video.purgeAt && purgeAt.getTime() === video.purgeAt.getTime())
        return { kind: 'unchanged', current };
      return { kind: 'change', next: { ...current, purgeAt }, effects: ['schedule_purge'] };
    }
    case 'permanent_delete':
      return {
        kind: 'change',
        next: {
          ...current,
          state: VideoState.Deleting,
          // When it left the catalogue, for its receipt: a soft delete's date stays, else now.
          deletedAt: video.deletedAt ?? now,
          deletionReason: 'permanent',
          deletionRequestedBy: actor?.sub ?? null,
        },
        // A pending purge job has the same id: ensuring the deletion job brings it forward.
        effects: ['enqueue_deletion'],
      };
    case 'restore':
      if (video.state === VideoState.Active) return { kind: 'unchanged', current };
      return {
        kind: 'change',
        next: {
          state: VideoState.Active,
          deletedAt: null,
          purgeAt: null,
          deletionReason: null,
          deletionRequestedBy: null,
        },
        effects: ['cancel_purge'],
      };
    case 'claim_purge':
      if (!isPurgeDue(video, now)) return { kind: 'unchanged', current };
      return {
        kind: 'change',
        // Whoever soft-deleted it stays its requester.
        next: { ...current, state: VideoState.Deleting, deletionReason: 'retention' },
        effects: ['enqueue_deletion'],
      };
  }
}
