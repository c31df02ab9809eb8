import { fakeTrashOperationStore } from '@test/fakes/fake-trash-operations';
import { fakeTransactions } from '@test/fakes/fake-transactions';
import { fakeVideoStore, trashedVideo as trashed, type FakeVideoOptions } from '@test/fakes/fake-videos';
import { VideoState } from '../video/video-state';
import type { VideoEntity } from '../video/video.entity';
import type { TrashOperationKind } from './trash-operation.entity';
import { TrashOperationWorkService } from './trash-operation-work.service';

/** A trash operation of `owner`'s trash, asked by `requestedBy`, written as the API writes it. */
async function setUp(
  rows: VideoEntity[],
  {
    kind = 'restore',
    requestedBy = 'owner',
    batchSize = 500,
    ...options
  }: { kind?: TrashOperationKind; requestedBy?: string; batchSize?: number } & FakeVideoOptions = {},
) {
  const videos = fakeVideoStore(rows, options);
  const store = fakeTrashOperationStore(videos.table);
  await store.repository.insertUnlessActive({
    id: 't1',
    authorId: 'owner',
    kind,
    requestedBy,
    startedAt: new Date(),
  });
  const work = new TrashOperationWorkService(
    fakeTransactions(videos.table, videos.events, store.operations),
    store.repository,
    videos.batches,
    videos.commands,
    { BULK_BATCH_SIZE: batchSize },
  );
  const operation = () => store.operations.get('t1')!;
  return { work, operation, ...videos };
}

describe('TrashOperationWorkService', () => {
  it('restores a large trash in batches of short transactions, each video once through decide()', async () => {
    const rows = Array.from({ length: 1_234 }, (_, n) => trashed(n));
    const { work, operation, table, lockedBatches, queueCalls, indexWrites, events } = await setUp([
      ...rows,
      trashed(9_999, 'other'),
    ]);
    expect(operation()).toMatchObject({ total: 1_234, done: 0, state: 'running' });

    expect(await work.run('t1')).toBe('completed');
    // Three full or partial batches; the last one, short, ends the walk.
    expect(lockedBatches).toEqual([500, 500, 234]);
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
    expect(events.filter((event) => event.type === 'video.restored')).toHaveLength(1_234);
    expect(operation()).toMatchObject({ state: 'completed', done: 1_234, activeAuthor: null });
    expect(operation().completedAt).toBeInstanceOf(Date);
    // A second run finds it completed and changes nothing.
    expect(await work.run('t1')).toBe('not_running');
  });

  it('empties the trash: each video is being deleted, asked for by the requester, its job due now', async () => {
    const { work, table, events, queueCalls, operation } = await setUp([trashed(1), trashed(2)], {
      kind: 'empty',
      requestedBy: 'root',
    });
    expect(await work.run('t1')).toBe('completed');
    // Oldest deletion first.
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
    expect(operation()).toMatchObject({ kind: 'empty', total: 2, done: 2, state: 'completed' });
  });

  it('leaves a video deleted after the operation was asked for in the trash', async () => {
    const later = trashed(7, 'owner', new Date(Date.now() + 60_000));
    const { work, table, operation } = await setUp([trashed(1), later]);
    expect(operation().total).toBe(1);
    expect(await work.run('t1')).toBe('completed');
    expect(table.get(later.id)!.state).toBe(VideoState.SoftDeleted);
    expect(operation().done).toBe(1);
  });

  it('keeps the batches committed before a failure, rolls that one back whole, and the next run resumes', async () => {
    const rows = Array.from({ length: 700 }, (_, n) => trashed(n));
    const { work, table, events, operation, lockedBatches } = await setUp(rows, {
      kind: 'empty',
      failWriteOnBatch: 2,
    });
    await expect(work.run('t1')).rejects.toThrow('connection lost');
    expect(events).toHaveLength(500);
    // `done` was committed with the first batch only.
    expect(operation()).toMatchObject({ state: 'running', done: 500 });
    const states = () => [...table.values()].map((row) => row.state);
    expect(states().filter((state) => state === VideoState.Deleting)).toHaveLength(500);
    expect(states().filter((state) => state === VideoState.SoftDeleted)).toHaveLength(200);

    // The retry starts at the first video left: no position to keep, no video twice.
    expect(await work.run('t1')).toBe('completed');
    expect(lockedBatches).toEqual([500, 200, 200]);
    expect(events).toHaveLength(700);
    expect(new Set(events.map((event) => event.subject)).size).toBe(700);
    expect(states().every((state) => state === VideoState.Deleting)).toBe(true);
    expect(operation()).toMatchObject({ state: 'completed', done: 700, total: 700 });
  });

  it('counts progress per batch, never past the total, and completes a trash emptied meanwhile', async () => {
    const rows = Array.from({ length: 6 }, (_, n) => trashed(n));
    const { work, table, operation } = await setUp(rows, { batchSize: 2 });
    // One video leaves the trash another way (its own restore) before the walk reaches it.
    table.set('v00000', { ...table.get('v00000')!, state: VideoState.Active, deletedAt: null });
    expect(await work.run('t1')).toBe('completed');
    expect(operation()).toMatchObject({ total: 6, done: 6, state: 'completed' });
  });

  it('goes on although Redis never answers: one stalled call ends the batch’s queue work', async () => {
    const { work, table, queueCalls, indexWrites } = await setUp([trashed(1), trashed(2), trashed(3)], {
      kind: 'empty',
      hangQueue: true,
    });
    expect(await work.run('t1')).toBe('completed');
    expect([...table.values()].every((row) => row.state === VideoState.Deleting)).toBe(true);
    expect(queueCalls.length).toBeLessThanOrEqual(3);
    expect(indexWrites).toHaveLength(1);
  }, 10_000);
});
