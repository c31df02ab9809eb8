import { fakeTransactions } from '../testing/fake-transactions';
import { fakeVideo, fakeVideoStore, type FakeVideoOptions } from '../testing/fake-videos';
import { TrashService } from './trash.service';
import { changedColumns } from './video-batch-commands.service';
import type { Actor } from './video-lifecycle';
import { VideoState } from './video-state';
import type { VideoEntity } from './video.entity';

const DAY = 86_400_000;
const owner: Actor = { sub: 'owner', roles: [] };
const stranger: Actor = { sub: 'stranger', roles: [] };
const admin: Actor = { sub: 'root', roles: ['admin'] };

function trashed(
  n: number,
  authorId = 'owner',
  deletedAt = new Date(Date.now() - (n + 1) * 1_000),
): VideoEntity {
  return fakeVideo(`v${String(n).padStart(5, '0')}`, {
    authorId,
    state: VideoState.SoftDeleted,
    deletedAt,
    purgeAt: new Date(deletedAt.getTime() + 30 * DAY),
    deletionReason: 'retention',
    deletionRequestedBy: authorId,
  });
}

function setUp(rows: VideoEntity[], options: FakeVideoOptions = {}) {
  const store = fakeVideoStore(rows, options);
  const service = new TrashService(
    fakeTransactions(store.table, store.events),
    store.batches,
    store.commands,
    {
      BULK_BATCH_SIZE: 500,
    },
  );
  return { service, ...store, transactions: store.lockedBatches };
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
        version: 4,
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
