import { fakeVideoStore, trashedVideo as trashed } from '@test/fakes/fake-videos';
import { TrashService } from './trash.service';
import { changedColumns } from './video-batch-commands.service';
import type { Actor } from './video-lifecycle';
import { VideoState } from './video-state';
import type { VideoEntity } from './video.entity';

const owner: Actor = { sub: 'owner', roles: [] };
const stranger: Actor = { sub: 'stranger', roles: [] };
const admin: Actor = { sub: 'root', roles: ['admin'] };

function setUp(rows: VideoEntity[]) {
  const store = fakeVideoStore(rows);
  return { service: new TrashService(store.batches), ...store };
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
