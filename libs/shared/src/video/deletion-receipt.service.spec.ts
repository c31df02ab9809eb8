import type { DeletionAuditEntity } from './deletion-audit.entity';
import type { DeletionAuditRepository } from './deletion-audit.repository';
import { DeletionReceiptService } from './deletion-receipt.service';
import type { Actor } from './video-lifecycle';
import { VideoState } from './video-state';
import type { VideoLifecycleRow, VideoRepository } from './video.repository';

const owner: Actor = { sub: 'owner', roles: [] };
const stranger: Actor = { sub: 'stranger', roles: [] };
const admin: Actor = { sub: 'root', roles: ['admin'] };
const at = (iso: string) => new Date(iso);

const row = (state: VideoState, extra: Partial<VideoLifecycleRow> = {}): VideoLifecycleRow => ({
  id: 'v1',
  authorId: 'owner',
  state,
  deletedAt: state === VideoState.Active ? null : at('2026-01-01T00:00:00Z'),
  purgeAt: state === VideoState.Active ? null : at('2026-01-31T00:00:00Z'),
  deletionReason: state === VideoState.Active ? null : 'retention',
  deletionRequestedBy: state === VideoState.Active ? null : 'owner',
  version: 3,
  ...extra,
});

const audit: DeletionAuditEntity = {
  id: '1',
  videoId: 'v1',
  authorId: 'owner',
  reason: 'permanent',
  requestedBy: 'root',
  deletedAt: at('2026-01-02T00:00:00Z'),
  purgeAt: null,
  objectsDeleted: 4,
  purgedAt: at('2026-01-02T00:00:05Z'),
};

/** The service over one video that has `video` as its row and `record` as its audit. */
function service(video: VideoLifecycleRow | undefined, record: DeletionAuditEntity | null) {
  const videos = { findLifecycle: () => Promise.resolve(video) } as unknown as VideoRepository;
  const audits = { findByVideoId: () => Promise.resolve(record) } as unknown as DeletionAuditRepository;
  return new DeletionReceiptService(videos, audits);
}

describe('DeletionReceiptService', () => {
  it('has nothing to show for an active video or one that never existed', async () => {
    expect(await service(row(VideoState.Active), null).receipt('v1', admin)).toEqual({ kind: 'not_found' });
    expect(await service(undefined, null).receipt('v1', admin)).toEqual({ kind: 'not_found' });
  });

  it('describes a soft delete from the row, to its author or an admin only', async () => {
    const soft = service(row(VideoState.SoftDeleted), null);
    expect(await soft.receipt('v1', stranger)).toEqual({ kind: 'forbidden' });
    expect(await soft.receipt('v1', admin)).toEqual({
      kind: 'ok',
      receipt: {
        id: 'v1',
        state: 'soft_deleted',
        deletedAt: at('2026-01-01T00:00:00Z'),
        purgeAt: at('2026-01-31T00:00:00Z'),
        requestedBy: 'owner',
        reason: 'retention',
        completedAt: null,
        objectsRemoved: null,
      },
    });
  });

  it('shows a deletion under way until its audit record exists, then the record', async () => {
    const deleting = row(VideoState.Deleting, { deletionReason: 'permanent', deletionRequestedBy: 'root' });
    expect(await service(deleting, null).receipt('v1', owner)).toMatchObject({
      kind: 'ok',
      receipt: { state: 'deleting', reason: 'permanent', requestedBy: 'root', completedAt: null },
    });
    // A purge stopped between writing the audit and removing the row: the audit is the truth.
    expect(await service(deleting, audit).receipt('v1', owner)).toMatchObject({
      kind: 'ok',
      receipt: { state: 'deleted', completedAt: audit.purgedAt, objectsRemoved: 4 },
    });
  });

  it('answers from the audit record once the row is gone, with the same owner rule', async () => {
    const purged = service(undefined, audit);
    expect(await purged.receipt('v1', stranger)).toEqual({ kind: 'forbidden' });
    expect(await purged.receipt('v1', owner)).toEqual({
      kind: 'ok',
      receipt: {
        id: 'v1',
        state: 'deleted',
        deletedAt: audit.deletedAt,
        purgeAt: null,
        requestedBy: 'root',
        reason: 'permanent',
        completedAt: audit.purgedAt,
        objectsRemoved: 4,
      },
    });
  });

  it('counts a soft delete recorded before reasons were kept as one for retention', async () => {
    const legacy = row(VideoState.SoftDeleted, { deletionReason: null, deletionRequestedBy: null });
    expect(await service(legacy, null).receipt('v1', owner)).toMatchObject({
      receipt: { reason: 'retention', requestedBy: null },
    });
  });
});
