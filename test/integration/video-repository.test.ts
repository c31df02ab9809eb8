import { randomUUID } from 'node:crypto';
import { VideoState } from '@app/shared/video/video-state';
import { seedVideos } from '../support/seed';
import { openTestContext, type TestContext } from '../support/test-context';

describe('VideoRepository: the reads every search makes', () => {
  let context: TestContext;

  beforeAll(async () => {
    context = await openTestContext();
  }, 60_000);

  beforeEach(() => context.reset());

  afterAll(() => context.close());

  it('answers each active video once, whatever the number of ids asked for', async () => {
    const ids = await seedVideos(context, 6, { objectsPerVideo: 0 });
    await context.dataSource.query('UPDATE videos SET state = ?, version = version + 1 WHERE id = ?', [
      VideoState.SoftDeleted,
      ids[5],
    ]);
    const rows = await context.videos.findByIds(ids);
    const versionOf = new Map(rows.map((row) => [row.id, row.version]));
    const active = ids.slice(0, 5);

    // 7 ids (padded to 10 in the statement) ending with an unknown one, then 3, then 1.
    for (const asked of [[...ids, randomUUID()], ids.slice(3), [ids[0]!]]) {
      const expected = asked.filter((id) => active.includes(id));
      const summaries = await context.videos.findActiveByIds(asked);
      expect(summaries.map((video) => video.id).sort()).toEqual([...expected].sort());
      for (const video of summaries) expect(video.version).toBe(versionOf.get(video.id));
    }
  });
});
