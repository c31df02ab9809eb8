import { fakeTrashOperationStore } from '@test/fakes/fake-trash-operations';
import { fakeVideoStore, trashedVideo as trashed } from '@test/fakes/fake-videos';
import type { Actor } from '../video/video-lifecycle';
import { TrashOperationService } from './trash-operation.service';

const owner: Actor = { sub: 'owner', roles: [] };
const stranger: Actor = { sub: 'stranger', roles: [] };
const admin: Actor = { sub: 'root', roles: ['admin'] };

function setUp() {
  const videos = fakeVideoStore([trashed(1), trashed(2), trashed(3, 'other')]);
  const store = fakeTrashOperationStore(videos.table);
  const service = new TrashOperationService(store.repository, videos.queues);
  return { service, ...store, queueCalls: videos.queueCalls };
}

describe('TrashOperationService', () => {
  it("writes an operation over the caller's trash and queues its job", async () => {
    const { service, queueCalls } = setUp();
    const answer = await service.ask(owner, undefined, 'empty', 'req-1');
    expect(answer).toMatchObject({
      kind: 'ok',
      operation: { authorId: 'owner', kind: 'empty', requestedBy: 'owner', total: 2, state: 'running' },
    });
    expect(queueCalls).toEqual([`trash ${answer.kind === 'ok' ? answer.operation.id : ''}`]);
  });

  it('answers the running operation to any request of the same trash, whatever its kind, and queues nothing more', async () => {
    const { service, queueCalls, operations } = setUp();
    const first = await service.ask(owner, undefined, 'restore');
    const again = await service.ask(owner, undefined, 'restore');
    const other = await service.ask(admin, 'owner', 'empty');
    const id = first.kind === 'ok' ? first.operation.id : '';
    for (const answer of [again, other]) {
      expect(answer).toMatchObject({ kind: 'ok', operation: { id, kind: 'restore' } });
    }
    expect(queueCalls).toHaveLength(1);
    expect(operations.size).toBe(1);
    // Another author's trash is its own.
    expect(await service.ask(admin, 'other', 'empty')).toMatchObject({ operation: { authorId: 'other' } });
  });

  it("refuses another author's trash to anyone but an admin, and shows an operation to its owner or an admin only", async () => {
    const { service } = setUp();
    expect(await service.ask(stranger, 'owner', 'empty')).toEqual({ kind: 'forbidden' });
    const asked = await service.ask(admin, 'owner', 'empty');
    const id = asked.kind === 'ok' ? asked.operation.id : '';
    // Asked by an admin, it is still the owner's trash: the owner may follow it.
    expect(await service.read(owner, id)).toMatchObject({ kind: 'ok', operation: { requestedBy: 'root' } });
    expect(await service.read(admin, id)).toMatchObject({ kind: 'ok' });
    expect(await service.read(stranger, id)).toEqual({ kind: 'forbidden' });
    expect(await service.read(owner, '00000000-0000-4000-8000-000000000000')).toEqual({ kind: 'not_found' });
  });
});
