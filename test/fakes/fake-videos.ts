import type { EntityManager } from 'typeorm';
import { recordedEvent, type EventData, type NewEvent } from '@app/shared/events/events';
import type { OutboxService } from '@app/shared/events/outbox.service';
import type { JobQueues } from '@app/shared/queue/job-queues.service';
import { VideoBatchCommands } from '@app/shared/video/video-batch-commands.service';
import type { StateColumns, VideoBatchRepository } from '@app/shared/video/video-batch.repository';
import type { VideoIndexSyncService } from '@app/shared/video/video-index-sync.service';
import { VideoState } from '@app/shared/video/video-state';
import type { VideoEntity } from '@app/shared/video/video.entity';
import type { VideoLifecycleRow, VideoRepository } from '@app/shared/video/video.repository';

export interface FakeVideoOptions {
  /** Queue calls never answer (Redis away). */
  hangQueue?: boolean;
  /** The n-th batch write (1-based) fails, as a lost connection would. */
  failWriteOnBatch?: number;
}

/** A video row for specs: active, by `authorId`, created at the epoch unless `changes` say otherwise. */
export function fakeVideo(id: string, changes: Partial<VideoEntity> = {}): VideoEntity {
  return {
    id,
    authorId: 'owner',
    title: 'A talk',
    description: '',
    tags: [],
    speakers: [],
    event: null,
    publishedAt: null,
    language: 'eng',
    state: VideoState.Active,
    deletedAt: null,
    purgeAt: null,
    deletionReason: null,
    deletionRequestedBy: null,
    version: 3,
    createdAt: new Date(0),
    updatedAt: new Date(0),
    ...changes,
  };
}

/** A video of `authorId`'s trash for specs: soft-deleted `n + 1` seconds before now (or at `deletedAt`). */
export function trashedVideo(
  n: number,
  authorId = 'owner',
  deletedAt = new Date(Date.now() - (n + 1) * 1_000),
): VideoEntity {
  return fakeVideo(`v${String(n).padStart(5, '0')}`, {
    authorId,
    state: VideoState.SoftDeleted,
    deletedAt,
    purgeAt: new Date(deletedAt.getTime() + 30 * 86_400_000),
    deletionReason: 'retention',
    deletionRequestedBy: authorId,
  });
}

/**
 * The videos table as a map, behind fakes of what batch work uses (the batch repository, the
 * queue, the index, the outbox), and the real `VideoBatchCommands` over them. Stores are exposed
 * for assertions and for `fakeTransactions`, which rolls them back when a transaction throws.
 */
export function fakeVideoStore(
  rows: VideoEntity[],
  { hangQueue = false, failWriteOnBatch = 0 }: FakeVideoOptions = {},
) {
  const table = new Map(rows.map((row) => [row.id, row]));
  const events: NewEvent[] = [];
  const lockedBatches: number[] = [];
  const queueCalls: string[] = [];
  const indexWrites: string[][] = [];
  let writes = 0;
  const all = () => [...table.values()];
  const inTrash = (authorId: string) =>
    all().filter((row) => row.authorId === authorId && row.state === VideoState.SoftDeleted);
  const erasable = (authorId: string, createdBy: Date) =>
    all()
      .filter((row) => row.authorId === authorId && row.createdAt <= createdBy)
      .filter((row) => row.state === VideoState.Active || row.state === VideoState.SoftDeleted)
      .sort((a, b) => a.id.localeCompare(b.id));
  const locked = (batch: VideoEntity[]) => {
    lockedBatches.push(batch.length);
    return Promise.resolve(batch as VideoLifecycleRow[]);
  };
  const batches = {
    trashPage: (authorId: string, offset: number, limit: number) =>
      Promise.resolve(
        inTrash(authorId)
          .sort((a, b) => b.deletedAt!.getTime() - a.deletedAt!.getTime())
          .slice(offset, offset + limit),
      ),
    trashCount: (authorId: string) => Promise.resolve(inTrash(authorId).length),
    lockTrashBatch: (_m: EntityManager, authorId: string, deletedBy: Date, limit: number) =>
      locked(
        inTrash(authorId)
          .filter((row) => row.deletedAt! <= deletedBy)
          .sort((a, b) => a.deletedAt!.getTime() - b.deletedAt!.getTime())
          .slice(0, limit),
      ),
    countErasable: (authorId: string, createdBy: Date) =>
      Promise.resolve(erasable(authorId, createdBy).length),
    lockErasableBatch: (
      _m: EntityManager,
      { authorId, createdBy, afterId }: { authorId: string; createdBy: Date; afterId: string },
      limit: number,
    ) =>
      locked(
        erasable(authorId, createdBy)
          .filter((row) => row.id > afterId)
          .slice(0, limit),
      ),
    countDeleting: (_m: EntityManager, authorId: string, createdBy: Date) =>
      Promise.resolve(
        all().filter(
          (row) =>
            row.authorId === authorId && row.createdAt <= createdBy && row.state === VideoState.Deleting,
        ).length,
      ),
    writeStates: (_m: EntityManager, changes: { id: string; columns: StateColumns }[], now: Date) => {
      writes += 1;
      if (writes === failWriteOnBatch) return Promise.reject(new Error('connection lost'));
      for (const { id, columns } of changes) {
        const row = table.get(id)!;
        table.set(id, { ...row, ...columns, version: row.version + 1, updatedAt: now });
      }
      return Promise.resolve();
    },
  };
  const videos = { findByIds: (ids: string[]) => Promise.resolve(ids.map((id) => table.get(id)!)) };
  const answer = () => (hangQueue ? new Promise<void>(() => undefined) : Promise.resolve());
  const queues = {
    ensureDeletionJob: (id: string, delayMs: number) => (
      queueCalls.push(`ensure ${id} ${delayMs}`),
      answer()
    ),
    cancelDeletionJob: (id: string) => (queueCalls.push(`cancel ${id}`), answer()),
    ensureErasureJob: (id: string) => (queueCalls.push(`erase ${id}`), answer()),
    ensureTrashJob: (id: string) => (queueCalls.push(`trash ${id}`), answer()),
  };
  // Each event checked against its schema (recordedEvent throws), as the real outbox does.
  const record = (recorded: NewEvent[]) => {
    recorded.forEach((event) => recordedEvent(event));
    events.push(...recorded);
    return Promise.resolve();
  };
  const outbox = {
    record: (_m: EntityManager, recorded: NewEvent[]) => record(recorded),
    recordErasureCompleted: (_m: EntityManager, data: EventData['erasure.completed'], completedAt: Date) =>
      record([{ type: 'erasure.completed', subject: data.erasureId, data, occurredAt: completedAt }]),
  };
  const index = {
    writeMany: (written: VideoEntity[]) => (
      indexWrites.push(written.map((row) => row.id)),
      Promise.resolve()
    ),
  };
  const commands = new VideoBatchCommands(
    batches as unknown as VideoBatchRepository,
    videos as unknown as VideoRepository,
    queues as unknown as JobQueues,
    index as unknown as VideoIndexSyncService,
    outbox as unknown as OutboxService,
  );
  return {
    table,
    events,
    lockedBatches,
    queueCalls,
    indexWrites,
    batches: batches as unknown as VideoBatchRepository,
    queues: queues as unknown as JobQueues,
    outbox: outbox as unknown as OutboxService,
    commands,
  };
}
