import { VideoLifecycleService } from '@app/shared/video/video-lifecycle.service';
import type { Actor } from '@app/shared/video/video-lifecycle';
import { VideoState } from '@app/shared/video/video-state';
import { seedVideos } from '../support/seed';
import { openTestContext, type TestContext } from '../support/test-context';

const author: Actor = { sub: 'author-1', roles: [] };
/** Videos changed at once: their ids are neighbours in the `(id, state, version)` index. */
const VIDEOS = 40;
const ROUNDS = 40;

describe('VideoLifecycleService on MySQL: many videos changed at once', () => {
  let context: TestContext;
  let lifecycle: VideoLifecycleService;

  beforeAll(async () => {
    context = await openTestContext();
    lifecycle = context.get(VideoLifecycleService);
  }, 60_000);

  beforeEach(() => context.reset(), 60_000);

  afterAll(() => context.close());

  // A state change moves the row's entry in the (id, state, version) index, which locks the gap
  // before its neighbour: two changes of neighbouring videos at once can deadlock, and MySQL rolls
  // one back. The bench's churn met one in 20,000 (a 503); here every change runs at once.
  it('commits every soft delete and restore of neighbouring videos, running a deadlock victim again', async () => {
    // In id order, so that each video's neighbours in the index are the ones beside it here.
    const ids = (await seedVideos(context, VIDEOS, { objectsPerVideo: 0 })).sort();
    const failures: string[] = [];
    // Round r deletes every other video and restores the ones between (their neighbours), all at once.
    const toggle = async (round: number) => {
      const settled = await Promise.allSettled(
        ids.map((id, i) =>
          (i + round) % 2 === 0 ? lifecycle.softDelete(id, author, 30) : lifecycle.restore(id, author),
        ),
      );
      for (const outcome of settled) if (outcome.status === 'rejected') failures.push(String(outcome.reason));
    };
    for (let round = 0; round < ROUNDS; round += 1) await toggle(round);
    expect(failures).toEqual([]);
    const rows: { id: string; state: string; version: number }[] = await context.dataSource.query(
      'SELECT id, state, version FROM videos WHERE id IN (?)',
      [ids],
    );
    // Every change committed exactly once. A restore of an active video changes nothing, so each
    // video moved on every round but its first (the odd ones start with a restore of nothing).
    expect(rows).toHaveLength(VIDEOS);
    const last = ROUNDS - 1;
    for (const row of rows) {
      const i = ids.indexOf(row.id);
      const changes = i % 2 === 0 ? ROUNDS : ROUNDS - 1;
      expect(row).toEqual({
        id: row.id,
        state: (i + last) % 2 === 0 ? VideoState.SoftDeleted : VideoState.Active,
        version: 1 + changes,
      });
    }
  }, 120_000);
});
