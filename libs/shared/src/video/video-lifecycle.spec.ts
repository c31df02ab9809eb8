import {
  decide,
  isPurgeDue,
  purgeDueSql,
  type Actor,
  type Command,
  type VideoSnapshot,
} from './video-lifecycle';
import { VideoState } from './video-state';

const DAY = 86_400_000;
const now = new Date('2026-01-10T12:00:00.000Z');
const owner: Actor = { sub: 'owner', roles: [] };
const stranger: Actor = { sub: 'someone-else', roles: [] };
const admin: Actor = { sub: 'root', roles: ['admin'] };

const active: VideoSnapshot = {
  id: 'v',
  authorId: 'owner',
  state: VideoState.Active,
  deletedAt: null,
  purgeAt: null,
};
const deletedAt = new Date(now.getTime() - 2 * DAY);
const softDeleted: VideoSnapshot = {
  ...active,
  state: VideoState.SoftDeleted,
  deletedAt,
  purgeAt: new Date(deletedAt.getTime() + 30 * DAY),
};
const deleting: VideoSnapshot = { ...active, state: VideoState.Deleting };

const soft = (retentionDays?: number): Command => ({
  type: 'soft_delete',
  retentionDays,
  defaultRetentionDays: 30,
});

const CALLER_COMMANDS: Command[] = [soft(), { type: 'permanent_delete' }, { type: 'restore' }];

describe('decide', () => {
  it('soft-deletes an active video with the default retention', () => {
    expect(decide(active, soft(), owner, now)).toEqual({
      kind: 'change',
      next: expect.objectContaining({
        state: VideoState.SoftDeleted,
        deletedAt: now,
        purgeAt: new Date(now.getTime() + 30 * DAY),
      }) as unknown,
      effects: ['schedule_purge'],
    });
  });

  it('records who soft-deleted a video, and keeps them through a repeat and the purge it leads to', () => {
    const decision = decide(active, soft(), owner, now);
    const next = decision.kind === 'change' ? decision.next : null;
    expect(next).toMatchObject({ deletionReason: 'retention', deletionRequestedBy: 'owner' });
    const asked = { ...softDeleted, deletionReason: 'retention' as const, deletionRequestedBy: 'owner' };
    expect(decide(asked, soft(1), admin, now)).toMatchObject({
      kind: 'change',
      next: { deletionRequestedBy: 'owner' },
    });
    expect(decide({ ...asked, purgeAt: now }, { type: 'claim_purge' }, null, now)).toMatchObject({
      kind: 'change',
      next: { state: VideoState.Deleting, deletionReason: 'retention', deletionRequestedBy: 'owner' },
    });
  });

  it('dates a permanent deletion: a soft delete keeps its date, an active video leaves now', () => {
    const from = (video: VideoSnapshot) => {
      const decision = decide(video, { type: 'permanent_delete' }, owner, now);
      return decision.kind === 'change' ? decision.next.deletedAt : undefined;
    };
    expect(from(active)).toEqual(now);
    expect(from(softDeleted)).toEqual(deletedAt);
  });

  it('applies retentionDays, including 0 (purge now)', () => {
    const decision = decide(active, soft(0), owner, now);
    expect(decision.kind === 'change' && decision.next.purgeAt).toEqual(now);
  });

  it('repeats a soft delete idempotently, keeping deletedAt and purgeAt', () => {
    expect(decide(softDeleted, soft(), owner, now)).toMatchObject({
      kind: 'unchanged',
      current: { deletedAt, purgeAt: softDeleted.purgeAt },
    });
  });

  it('recomputes purgeAt from deletedAt when a repeat gives retentionDays', () => {
    const decision = decide(softDeleted, soft(1), owner, now);
    expect(decision).toMatchObject({ kind: 'change', effects: ['schedule_purge'] });
    expect(decision.kind === 'change' && decision.next).toMatchObject({
      deletedAt,
      purgeAt: new Date(deletedAt.getTime() + DAY),
    });
  });

  it('permanently deletes an active or soft-deleted video, recording who asked', () => {
    for (const video of [active, softDeleted]) {
      expect(decide(video, { type: 'permanent_delete' }, admin, now)).toEqual({
        kind: 'change',
        next: expect.objectContaining({
          state: VideoState.Deleting,
          deletionReason: 'permanent',
          deletionRequestedBy: 'root',
        }) as unknown,
        effects: ['enqueue_deletion'],
      });
    }
  });

  it('restores a soft-deleted video and cancels its purge; an active one is an idempotent success', () => {
    expect(decide(softDeleted, { type: 'restore' }, owner, now)).toEqual({
      kind: 'change',
      next: {
        state: VideoState.Active,
        deletedAt: null,
        purgeAt: null,
        deletionReason: null,
        deletionRequestedBy: null,
      },
      effects: ['cancel_purge'],
    });
    expect(decide(active, { type: 'restore' }, owner, now)).toMatchObject({ kind: 'unchanged' });
  });

  it.each(CALLER_COMMANDS)('answers not found for a missing video or one being deleted: %p', (command) => {
    expect(decide(null, command, admin, now)).toEqual({ kind: 'not_found' });
    expect(decide(deleting, command, admin, now)).toEqual({ kind: 'not_found' });
  });

  it.each(CALLER_COMMANDS)('lets only the author or an admin act: %p', (command) => {
    expect(decide(softDeleted, command, stranger, now)).toEqual({ kind: 'forbidden' });
    expect(decide(softDeleted, command, admin, now).kind).not.toBe('forbidden');
    expect(decide(softDeleted, command, owner, now).kind).not.toBe('forbidden');
  });

  it('claims a purge only when it is due', () => {
    const due = { ...softDeleted, purgeAt: now };
    expect(decide(due, { type: 'claim_purge' }, null, now)).toEqual({
      kind: 'change',
      next: expect.objectContaining({ state: VideoState.Deleting, deletionReason: 'retention' }) as unknown,
      effects: ['enqueue_deletion'],
    });
    expect(decide(softDeleted, { type: 'claim_purge' }, null, now)).toMatchObject({ kind: 'unchanged' });
    expect(decide(active, { type: 'claim_purge' }, null, now)).toMatchObject({ kind: 'unchanged' });
  });

  it('lets a purge carry on with a video already being deleted, and stop for one already gone', () => {
    expect(decide(deleting, { type: 'claim_purge' }, null, now)).toMatchObject({
      kind: 'unchanged',
      current: { state: VideoState.Deleting },
    });
    expect(decide(null, { type: 'claim_purge' }, null, now)).toEqual({ kind: 'not_found' });
  });
});

describe('isPurgeDue', () => {
  it('is due from the purge date on, for soft-deleted videos only', () => {
    const at = (purgeAt: Date) => ({ ...softDeleted, purgeAt });
    expect(isPurgeDue(at(now), now)).toBe(true);
    expect(isPurgeDue(at(new Date(now.getTime() - 1)), now)).toBe(true);
    expect(isPurgeDue(at(new Date(now.getTime() + 1)), now)).toBe(false);
    expect(isPurgeDue({ ...active, purgeAt: now }, now)).toBe(false);
    expect(isPurgeDue({ ...deleting, purgeAt: now }, now)).toBe(false);
    expect(isPurgeDue({ ...softDeleted, purgeAt: null }, now)).toBe(false);
  });

  it('has the same rule in SQL: the state and the purge date against the moment given', () => {
    expect(purgeDueSql(now)).toEqual({
      where: 'state = ? AND purge_at <= ?',
      parameters: [VideoState.SoftDeleted, now],
    });
  });
});
