import type { EntityManager } from 'typeorm';
import type { NewEvent } from '../events/events';
import type { OutboxService } from '../events/outbox.service';
import type { JobQueues } from '../queue/job-queues.service';
import { fakeTransactions } from '../testing/fake-transactions';
import { TrashService } from './trash.service';
import { changedColumns, VideoBatchCommands } from './video-batch-commands.service';
import type { StateColumns, VideoBatchRepository } from './video-batch.repository';
import type { VideoIndexSyncService } from './video-index-sync.service';
import type { Actor } from './video-lifecycle';
import { VideoState } from './video-state';
import type { VideoEntity } from './video.entity';
import type { VideoLifecycleRow, VideoRepository } from './video.repository';

const DAY = 86_400_000;
const owner: Actor = { sub: 'owner', roles: [] };
const stranger: Actor = { sub: 'stranger', roles: [] };
const admin: Actor = { sub: 'root', roles: ['admin'] };

function trashed(
  n: number,
  authorId = 'owner',
  deletedAt = new Date(Date.now() - (n + 1) * 1_000),
): VideoEntity {
  return {
    id: `v${String(n).padStart(5, '0')}`,
    authorId,
    title: `Talk ${n}`,
    description: '',
    tags: [],
    publishedAt: null,
    state: VideoState.SoftDeleted,
    deletedAt,
    purgeAt: new Date(deletedAt.getTime() + 30 * DAY),
    deletionReason: 'retention',
    deletionRequestedBy: authorId,
    version: 2,
    createdAt: new Date(0),
    updatedAt: new Date(0),
  };
}

/** The videos table as a map, with transactions that roll back when their work throws. */
function setUp(rows: VideoEntity[], { hangQueue = false, failWriteOnBatch = 0 } = {}) {
  const table = new Map(rows.map((row) => [row.id, row]));
  const transactions: number[] = [];
  const queueCalls: string[] = [];
  const indexWrites: string[][] = [];
  let writes = 0;
  const inTrash = (authorId: string) =>
    [...table.values()].filter((row) => row.authorId === authorId && row.state === VideoState.SoftDeleted);
  const batches = {
    trashPage: (authorId: string, offset: number, limit: number) =>
      Promise.resolve(
        inTrash(authorId)
          .sort((a, b) => b.deletedAt!.getTime() - a.deletedAt!.getTime())
          .slice(offset, offset + limit),
      ),
    trashCount: (authorId: string) => Promise.resolve(inTrash(authorId).length),
    lockTrashBatch: (_m: EntityManager, authorId: string, deletedBy: Date, limit: number) => {
      const batch = inTrash(authorId)
        .filter((row) => row.deletedAt! <= deletedBy)
        .sort((a, b) => a.deletedAt!.getTime() - b.deletedAt!.getTime())
        .slice(0, limit);
      transactions.push(batch.length);
      return Promise.resolve(batch as VideoLifecycleRow[]);
    },
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
  };
  const events: NewEvent[] = [];
  const outbox = {
    record: (_m: EntityManager, recorded: NewEvent[]) => (events.push(...recorded), Promise.resolve()),
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
  const service = new TrashService(
    fakeTransactions(table, events),
    batches as unknown as VideoBatchRepository,
    commands,
    { BULK_BATCH_SIZE: 500 },
  );
  return { service, table, events, transactions, queueCalls, indexWrites };
}

describe('TrashService', () => {
  it("lists the caller's trash, or another author's for an admin only", async () => {
    const { service } = setUp([trashed(1), trashed(2), trashed(3, 'other')]);
    const mine = await service.list(owner, { page: 1, limit: 20 });
    expect(mine).toMatchObject({ kind: 'ok', total: 2 });
    expect(mine.kind === 'ok' && mine.items.map((item) => item.id)).toEqual(['v00001', 'v00002']);
    expect(await service.list(stranger, { authorId: 'owner', page: 1, limit: 20 })).toEqual({
      kind: 'forbidden',
    });
    expect(await service.list(admin, { authorId: 'other', page: 1, limit: 20 })).toMatchObject({ total: 1 });
    expect(await service.list(owner, { page: 2, limit: 1 })).toMatchObject({ items: [{ id: 'v00002' }] });
  });

  it('restores a large trash in batches of short transactions, each video once through decide()', async () => {
    const rows = Array.from({ length: 1_234 }, (_, n) => trashed(n));
    const { service, table, transactions, queueCalls, indexWrites } = setUp([
      ...rows,
      trashed(9_999, 'other'),
    ]);
    expect(await service.restoreAll(owner)).toEqual({ kind: 'ok', count: 1_234 });
    expect(transactions).toEqual([500, 500, 234]);
    for (const row of rows) {
      expect(table.get(row.id)).toMatchObject({
        state: VideoState.Active,
        deletedAt: null,
        purgeAt: null,
        deletionRequestedBy: null,
        version: 3,
      });
    }
    expect(table.get('v09999')!.state).toBe(VideoState.SoftDeleted);
    expect(queueCalls.sort()).toEqual(rows.map((row) => `cancel ${row.id}`).sort());
    expect(indexWrites.map((ids) => ids.length)).toEqual([500, 500, 234]);
  });

  it('empties the trash: each video is being deleted, asked for by the caller, its job due now', async () => {
    const { service, table, events, queueCalls } = setUp([trashed(1), trashed(2)]);
    expect(await service.emptyAll(admin, 'owner')).toEqual({ kind: 'ok', count: 2 });
    expect(events).toEqual([
      expect.objectContaining({ type: 'video.deletion_started', subject: 'v00002' }),
      expect.objectContaining({ type: 'video.deletion_started', subject: 'v00001' }),
    ]);
    expect(events[0]!.data).toMatchObject({ reason: 'permanent', requestedBy: 'root' });
    for (const id of ['v00001', 'v00002']) {
      expect(table.get(id)).toMatchObject({
        state: VideoState.Deleting,
        deletionReason: 'permanent',
        deletionRequestedBy: 'root',
      });
    }
    expect(queueCalls.sort()).toEqual(['ensure v00001 0', 'ensure v00002 0']);
    expect(await service.emptyAll(stranger, 'owner')).toEqual({ kind: 'forbidden' });
  });

  it('leaves a video deleted after the request began in the trash', async () => {
    const later = trashed(7, 'owner', new Date(Date.now() + 60_000));
    const { service, table } = setUp([trashed(1), later]);
    expect(await service.restoreAll(owner)).toMatchObject({ count: 1 });
    expect(table.get(later.id)!.state).toBe(VideoState.SoftDeleted);
  });

  it('keeps the batches already committed when a later one fails, and rolls that one back whole', async () => {
    const rows = Array.from({ length: 700 }, (_, n) => trashed(n));
    const { service, table, events } = setUp(rows, { failWriteOnBatch: 2 });
    await expect(service.restoreAll(owner)).rejects.toThrow('connection lost');
    expect(events).toHaveLength(500);
    const states = [...table.values()].map((row) => row.state);
    expect(states.filter((state) => state === VideoState.Active)).toHaveLength(500);
    expect(states.filter((state) => state === VideoState.SoftDeleted)).toHaveLength(200);
  });

  it('answers although Redis never does: one stalled call ends the batch’s queue work', async () => {
    const { service, table, queueCalls, indexWrites } = setUp([trashed(1), trashed(2), trashed(3)], {
      hangQueue: true,
    });
    const started = Date.now();
    expect(await service.emptyAll(owner)).toMatchObject({ count: 3 });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect([...table.values()].every((row) => row.state === VideoState.Deleting)).toBe(true);
    expect(queueCalls.length).toBeLessThanOrEqual(3);
    expect(indexWrites).toHaveLength(1);
  }, 10_000);
});

describe('changedColumns', () => {
  it('names only the columns a decision changes, comparing dates by value', () => {
    const row = trashed(1);
    const next = {
      state: VideoState.Deleting,
      deletedAt: new Date(row.deletedAt!.getTime()),
      purgeAt: row.purgeAt,
      deletionReason: 'permanent' as const,
      deletionRequestedBy: 'owner',
    };
    expect(changedColumns(row, next)).toEqual({ state: VideoState.Deleting, deletionReason: 'permanent' });
  });
});
