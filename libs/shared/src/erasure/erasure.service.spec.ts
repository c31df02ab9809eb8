import { fakeErasureStore } from '@test/fakes/fake-erasures';
import { fakeVideo, fakeVideoStore } from '@test/fakes/fake-videos';
import type { Actor } from '../video/video-lifecycle';
import { VideoState } from '../video/video-state';
import { ErasureService } from './erasure.service';

const author: Actor = { sub: 'owner', roles: [] };
const stranger: Actor = { sub: 'stranger', roles: [] };
const admin: Actor = { sub: 'root', roles: ['admin'] };

function setUp({ hangQueue = false } = {}) {
  const videos = fakeVideoStore(
    [
      fakeVideo('a1'),
      fakeVideo('a2', { state: VideoState.SoftDeleted, deletedAt: new Date(0), purgeAt: new Date(1) }),
      fakeVideo('a3', { state: VideoState.Deleting }),
      fakeVideo('b1', { authorId: 'other' }),
    ],
    { hangQueue },
  );
  const erasures = fakeErasureStore(videos.batches);
  const service = new ErasureService(erasures.repository, videos.batches, videos.queues);
  return { service, erasures: erasures.erasures, queueCalls: videos.queueCalls, table: videos.table };
}

describe('ErasureService', () => {
  it('lets only the author or an admin ask, even for a dry run', async () => {
    const { service, erasures } = setUp();
    for (const dryRun of [true, false]) {
      expect(await service.ask(stranger, 'owner', { mode: 'soft', dryRun })).toEqual({ kind: 'forbidden' });
    }
    expect(erasures.size).toBe(0);
  });

  it('counts in a dry run the active and soft-deleted videos, and writes nothing', async () => {
    const { service, erasures, queueCalls } = setUp();
    expect(await service.ask(admin, 'owner', { mode: 'permanent', dryRun: true })).toEqual({
      kind: 'ok',
      dryRun: true,
      videos: 2,
    });
    expect(erasures.size).toBe(0);
    expect(queueCalls).toEqual([]);
  });

  it('writes one erasure and starts its job; asking again while it is unfinished answers the same one', async () => {
    const { service, erasures, queueCalls } = setUp();
    const first = await service.ask(author, 'owner', { mode: 'soft', retentionDays: 3, dryRun: false });
    expect(first).toMatchObject({
      kind: 'ok',
      dryRun: false,
      erasure: {
        authorId: 'owner',
        mode: 'soft',
        retentionDays: 3,
        requestedBy: 'owner',
        total: 2,
        state: 'running',
      },
    });
    const id = first.kind === 'ok' && !first.dryRun ? first.erasure!.id : '';
    const again = await service.ask(admin, 'owner', { mode: 'permanent', dryRun: false });
    expect(again).toMatchObject({ erasure: { id, mode: 'soft' } });
    expect(erasures.size).toBe(1);
    expect(queueCalls).toEqual([`erase ${id}`]);
  });

  it('keeps no retention for a permanent erasure, and a new one once the last completed', async () => {
    const { service, erasures } = setUp();
    const first = await service.ask(admin, 'owner', { mode: 'permanent', retentionDays: 9, dryRun: false });
    expect(first).toMatchObject({ erasure: { mode: 'permanent', retentionDays: null, requestedBy: 'root' } });
    const id = first.kind === 'ok' && !first.dryRun ? first.erasure!.id : '';
    erasures.set(id, { ...erasures.get(id)!, state: 'completed', activeAuthor: null });
    const second = await service.ask(admin, 'owner', { mode: 'permanent', dryRun: false });
    expect(second.kind === 'ok' && !second.dryRun && second.erasure!.id).not.toBe(id);
    expect(erasures.size).toBe(2);
  });

  it('answers an author with nothing to erase with no erasure, writing nothing, however often asked', async () => {
    const { service, erasures, queueCalls, table } = setUp();
    for (const [id, row] of table)
      if (row.authorId === 'owner') table.set(id, { ...row, state: VideoState.Deleting });
    for (const [actor, authorId] of [
      [author, 'owner'],
      [admin, 'owner'],
      [admin, 'nobody'],
      [admin, 'nobody'],
    ] as const) {
      for (const mode of ['soft', 'permanent'] as const)
        expect(await service.ask(actor, authorId, { mode, dryRun: false })).toEqual({
          kind: 'ok',
          dryRun: false,
          erasure: null,
        });
    }
    expect(erasures.size).toBe(0);
    expect(queueCalls).toEqual([]);
  });

  it('answers the erasure under way even once none of its videos is left to count', async () => {
    const { service, erasures, table } = setUp();
    const first = await service.ask(admin, 'owner', { mode: 'permanent', dryRun: false });
    for (const [id, row] of table)
      if (row.authorId === 'owner') table.set(id, { ...row, state: VideoState.Deleting });
    const id = first.kind === 'ok' && !first.dryRun ? first.erasure!.id : '';
    expect(await service.ask(author, 'owner', { mode: 'soft', dryRun: false })).toMatchObject({
      erasure: { id, mode: 'permanent' },
    });
    expect(erasures.size).toBe(1);
  });

  it('answers although Redis never does: the sweep starts the erasure', async () => {
    const { service, erasures } = setUp({ hangQueue: true });
    const started = Date.now();
    expect(await service.ask(author, 'owner', { mode: 'soft', dryRun: false })).toMatchObject({ kind: 'ok' });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(erasures.size).toBe(1);
  }, 10_000);

  it('shows an erasure to its author and admins only', async () => {
    const { service } = setUp();
    const asked = await service.ask(author, 'owner', { mode: 'soft', dryRun: false });
    const id = asked.kind === 'ok' && !asked.dryRun ? asked.erasure!.id : '';
    expect(await service.read(admin, id)).toMatchObject({ kind: 'ok', erasure: { id } });
    expect(await service.read(author, id)).toMatchObject({ kind: 'ok' });
    expect(await service.read(stranger, id)).toEqual({ kind: 'forbidden' });
    expect(await service.read(admin, 'no-such-erasure')).toEqual({ kind: 'not_found' });
  });
});
