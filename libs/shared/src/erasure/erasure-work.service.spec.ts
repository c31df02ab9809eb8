import { OutboxRetentionService } from '../events/outbox-retention.service';
import { fakeErasureStore } from '@test/fakes/fake-erasures';
import { fakeOutboxStore } from '@test/fakes/fake-outbox';
import { fakeTrashOperationStore } from '@test/fakes/fake-trash-operations';
import { fakeTransactions } from '@test/fakes/fake-transactions';
import { fakeVideo, fakeVideoStore, type FakeVideoOptions } from '@test/fakes/fake-videos';
import { VideoState } from '../video/video-state';
import type { VideoEntity } from '../video/video.entity';
import type { EntityManager } from 'typeorm';
import type { ErasureMode } from './erasure.entity';
import { ErasureWorkService } from './erasure-work.service';

const DAY = 86_400_000;
const asked = new Date('2026-06-01T00:00:00Z');

const catalogue = (count: number, authorId = 'owner') =>
  Array.from({ length: count }, (_, n) =>
    fakeVideo(`${authorId}-${String(n).padStart(5, '0')}`, { authorId }),
  );

/** An erasure of `owner`'s videos, asked by `requestedBy`, written as the API writes it. */
async function setUp(
  rows: VideoEntity[],
  {
    mode = 'soft',
    requestedBy = 'owner',
    retentionDays = null as number | null,
    ...options
  }: {
    mode?: ErasureMode;
    requestedBy?: string;
    retentionDays?: number | null;
  } & FakeVideoOptions = {},
) {
  const videos = fakeVideoStore(rows, options);
  const erasures = fakeErasureStore(videos.batches);
  const outbox = fakeOutboxStore();
  const trash = fakeTrashOperationStore(videos.table);
  await erasures.repository.insertUnlessActive({
    id: 'e1',
    authorId: 'owner',
    mode,
    retentionDays,
    requestedBy,
    startedAt: asked,
  });
  const work = new ErasureWorkService(
    fakeTransactions(videos.table, videos.events, erasures.erasures, outbox.events, trash.operations),
    erasures.repository,
    videos.batches,
    videos.commands,
    videos.outbox,
    new OutboxRetentionService(outbox.repository, { OUTBOX_RETENTION_DAYS: 7 }),
    trash.repository,
    { RETENTION_DEFAULT_DAYS: 30, BULK_BATCH_SIZE: 500 },
  );
  const erasure = () => erasures.erasures.get('e1')!;
  const completions = () => videos.events.filter((event) => event.type === 'erasure.completed');
  return { work, erasure, completions, stored: outbox, trash, ...videos };
}

describe('ErasureWorkService', () => {
  it('soft-erases in batches, each video once through decide(), and completes with its walk', async () => {
    const later = fakeVideo('owner-later', { createdAt: new Date(asked.getTime() + 1) });
    const { work, erasure, table, lockedBatches, events, completions } = await setUp(
      [...catalogue(1_234), ...catalogue(3, 'other'), later],
      { retentionDays: 7 },
    );
    expect(erasure().total).toBe(1_234);

    expect(await work.run('e1')).toBe('completed');
    expect(lockedBatches).toEqual([500, 500, 234]);
    const owned = [...table.values()].filter((row) => row.authorId === 'owner' && row.id !== later.id);
    for (const row of owned) {
      expect(row).toMatchObject({ state: VideoState.SoftDeleted, deletionRequestedBy: 'owner', version: 4 });
      expect(row.purgeAt!.getTime() - row.deletedAt!.getTime()).toBe(7 * DAY);
    }
    expect(table.get(later.id)!.state).toBe(VideoState.Active);
    expect([...table.values()].filter((row) => row.authorId === 'other').map((row) => row.state)).toEqual([
      VideoState.Active,
      VideoState.Active,
      VideoState.Active,
    ]);
    expect(erasure()).toMatchObject({ state: 'completed', done: 1_234, activeAuthor: null });
    expect(completions()).toEqual([
      expect.objectContaining({
        subject: 'e1',
        data: expect.objectContaining({ total: 1_234, mode: 'soft', requestedBy: 'owner' }) as unknown,
      }),
    ]);
    expect(events.filter((event) => event.type === 'video.soft_deleted')).toHaveLength(1_234);
    expect(await work.run('e1')).toBe('not_running');
    expect(completions()).toHaveLength(1);
  });

  it('resumes after a failed batch from what MySQL committed: done exact, no video changed twice', async () => {
    const { work, erasure, table } = await setUp(catalogue(1_200), { failWriteOnBatch: 2 });
    await expect(work.run('e1')).rejects.toThrow('connection lost');
    // The first batch committed with its position and count; the second rolled back whole.
    expect(erasure()).toMatchObject({ state: 'running', done: 500, afterId: 'owner-00499' });
    expect([...table.values()].filter((row) => row.state === VideoState.SoftDeleted)).toHaveLength(500);

    expect(await work.run('e1')).toBe('completed');
    expect(erasure()).toMatchObject({ done: 1_200, total: 1_200 });
    expect(new Set([...table.values()].map((row) => row.version))).toEqual(new Set([4]));
  });

  it('permanently erases: every video being deleted, completed only once all are purged', async () => {
    const { work, erasure, table, queueCalls, completions } = await setUp(catalogue(3), {
      mode: 'permanent',
      requestedBy: 'root',
    });
    expect(await work.run('e1')).toBe('walked');
    expect(erasure()).toMatchObject({ state: 'purging', done: 3, completedAt: null, activeAuthor: 'owner' });
    expect(
      [...table.values()].map((row) => [row.state, row.deletionReason, row.deletionRequestedBy]),
    ).toEqual(Array(3).fill([VideoState.Deleting, 'permanent', 'root']));
    expect(queueCalls.sort()).toEqual([
      'ensure owner-00000 0',
      'ensure owner-00001 0',
      'ensure owner-00002 0',
    ]);

    table.delete('owner-00000');
    table.delete('owner-00001');
    expect(await work.completeIfPurged('e1')).toBe(false);
    table.delete('owner-00002');
    expect(await work.completeIfPurged('e1')).toBe(true);
    expect(erasure()).toMatchObject({ state: 'completed', activeAuthor: null });
    expect(await work.completeIfPurged('e1')).toBe(false);
    expect(completions()).toHaveLength(1);
  });

  it("erases the author's events when it completes: settled ones at once, pending ones marked", async () => {
    const { work, table, stored: outbox } = await setUp(catalogue(2), { mode: 'permanent' });
    const recorded = (seq: number, id: string, authorId: string) =>
      outbox.events.push({ seq, id, authorId, occurredAt: asked, erasedAt: null });
    recorded(1, 'delivered', 'owner');
    recorded(2, 'pending', 'owner');
    recorded(3, 'bystander', 'other');
    outbox.deliveries.push(
      { id: 1, eventId: 'delivered', state: 'delivered', lastAttemptAt: asked },
      { id: 2, eventId: 'pending', state: 'pending', lastAttemptAt: null },
      { id: 3, eventId: 'bystander', state: 'delivered', lastAttemptAt: asked },
    );

    expect(await work.run('e1')).toBe('walked');
    expect(outbox.events.every((event) => event.erasedAt === null)).toBe(true);
    table.clear();
    expect(await work.completeIfPurged('e1')).toBe(true);
    expect(outbox.events.map((event) => [event.id, event.erasedAt !== null])).toEqual([
      ['pending', true],
      ['bystander', false],
    ]);
    expect(outbox.deliveries.map((delivery) => delivery.eventId)).toEqual(['pending', 'bystander']);
  });

  it.each<ErasureMode>(['soft', 'permanent'])(
    "deletes the author's finished trash operations as a %s erasure completes, and only those",
    async (mode) => {
      const { work, table, trash } = await setUp(catalogue(2), { mode });
      const operation = (id: string, authorId: string, startedAt: Date) =>
        trash.repository.insertUnlessActive({
          id,
          authorId,
          kind: 'empty',
          requestedBy: authorId,
          startedAt,
        });
      await operation('t-done', 'owner', asked);
      await trash.repository.complete({} as EntityManager, 't-done', asked);
      await operation('t-running', 'owner', asked);
      await operation('t-other', 'other', asked);
      await trash.repository.complete({} as EntityManager, 't-other', asked);

      const step = await work.run('e1');
      if (mode === 'permanent') {
        expect(step).toBe('walked');
        expect(trash.operations.has('t-done')).toBe(true);
        table.clear();
        expect(await work.completeIfPurged('e1')).toBe(true);
      } else expect(step).toBe('completed');
      expect([...trash.operations.keys()].sort()).toEqual(['t-other', 't-running']);
    },
  );

  it('counts a video another deletion took meanwhile as done', async () => {
    const { work, erasure, table } = await setUp(catalogue(4));
    table.set('owner-00001', { ...table.get('owner-00001')!, state: VideoState.Deleting });
    expect(await work.run('e1')).toBe('completed');
    expect(erasure()).toMatchObject({ done: 4, total: 4 });
  });
});
