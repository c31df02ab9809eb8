import type { ErasureWorkService } from '@app/shared/erasure/erasure-work.service';
import type { JobQueues } from '@app/shared/queue/job-queues.service';
import { QUEUES } from '@app/shared/queue/queues';
import { EraseAuthorHandler } from './erase-author.handler';

function setUp() {
  const calls: string[] = [];
  const work = {
    run: (erasureId: string) => (calls.push(`run ${erasureId}`), Promise.resolve('walked' as const)),
  };
  const queues = {
    ensureErasureJob: (erasureId: string) => (calls.push(`ensure ${erasureId}`), Promise.resolve()),
  };
  const handler = new EraseAuthorHandler(
    work as unknown as ErasureWorkService,
    queues as unknown as JobQueues,
  );
  return { handler, calls };
}

describe('EraseAuthorHandler', () => {
  it('walks an erasure whose job is on the erasures queue', async () => {
    const { handler, calls } = setUp();
    expect(await handler.handle({ erasureId: 'e1' }, { queueName: QUEUES.erasure })).toBe('walked');
    expect(calls).toEqual(['run e1']);
  });

  it('hands a job left on the deletion queue by an earlier version to the erasures queue, without walking', async () => {
    const { handler, calls } = setUp();
    expect(await handler.handle({ erasureId: 'e1' }, { queueName: QUEUES.deletion })).toBe('handed_over');
    expect(calls).toEqual(['ensure e1']);
  });
});
