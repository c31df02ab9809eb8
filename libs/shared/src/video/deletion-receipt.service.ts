import { Injectable } from '@nestjs/common';
import type { DeletionAuditEntity } from './deletion-audit.entity';
import { DeletionAuditRepository } from './deletion-audit.repository';
import { mayActOn, type Actor, type DeletionReason } from './video-lifecycle';
import { VideoState } from './video-state';
import { type VideoLifecycleRow, VideoRepository } from './video.repository';

/** Where one video's deletion stands (docs/contract.md §10.3). */
export interface DeletionReceipt {
  id: string;
  state: 'soft_deleted' | 'deleting' | 'deleted';
  deletedAt: Date | null;
  purgeAt: Date | null;
  requestedBy: string | null;
  reason: DeletionReason;
  /** When media, index document and row were all gone; null until then. */
  completedAt: Date | null;
  objectsRemoved: number | null;
}

export type ReceiptResult =
  { kind: 'not_found' } | { kind: 'forbidden' } | { kind: 'ok'; receipt: DeletionReceipt };

/**
 * Receipts read the row while there is one and the audit record after: a purge writes the audit
 * before it removes the row, so a video is never in neither.
 */
@Injectable()
export class DeletionReceiptService {
  constructor(
    private readonly videos: VideoRepository,
    private readonly audits: DeletionAuditRepository,
  ) {}

  async receipt(videoId: string, actor: Actor): Promise<ReceiptResult> {
    const row = await this.videos.findLifecycle(videoId);
    if (row?.state === VideoState.Active) return { kind: 'not_found' };
    // Once written, the audit record is the truth: the purge writes it and removes the row in one transaction.
    const audit = row?.state === VideoState.SoftDeleted ? null : await this.audits.findByVideoId(videoId);
    const owner = audit ?? row;
    if (!owner) return { kind: 'not_found' };
    if (!mayActOn(actor, owner)) return { kind: 'forbidden' };
    return { kind: 'ok', receipt: audit ? fromAudit(audit) : fromRow(row!) };
  }
}

function fromRow(row: VideoLifecycleRow): DeletionReceipt {
  return {
    id: row.id,
    state: row.state === VideoState.SoftDeleted ? 'soft_deleted' : 'deleting',
    deletedAt: row.deletedAt,
    purgeAt: row.purgeAt,
    requestedBy: row.deletionRequestedBy,
    // Rows soft-deleted before the reason was recorded on soft delete have none: retention is theirs.
    reason: row.deletionReason ?? 'retention',
    completedAt: null,
    objectsRemoved: null,
  };
}

function fromAudit(audit: DeletionAuditEntity): DeletionReceipt {
  return {
    id: audit.videoId,
    state: 'deleted',
    deletedAt: audit.deletedAt,
    purgeAt: audit.purgeAt,
    requestedBy: audit.requestedBy,
    reason: audit.reason,
    completedAt: audit.purgedAt,
    objectsRemoved: audit.objectsDeleted,
  };
}
