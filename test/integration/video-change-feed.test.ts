import type { Redis } from 'ioredis';
import { REDIS_CLIENT } from '@app/shared/redis/redis';
import { VideoBatchRepository } from '@app/shared/video/video-batch.repository';
import {
  MAX_IDS_PER_CHANGE,
  VIDEO_CHANGES_STREAM,
  VideoChangeFeed,
  type Change,
} from '@app/shared/video/video-change-feed';
import type { NextState } from '@app/shared/video/video-lifecycle';
import { VideoState } from '@app/shared/video/video-state';
import { seedVideos } from '../support/seed';
import { openTestContext, type TestContext } from '../support/test-context';

const softDeleted = (now: Date): NextState => ({
  state: VideoState.SoftDeleted,
  deletedAt: now,
  purgeAt: new Date(now.getTime() + 86_400_000),
  deletionReason: 'retention',
  deletionRequestedBy: 'tester',
});

describe('VideoChangeFeed: every committed write of videos, on the real MySQL and Redis', () => {
  let context: TestContext;
  let feed: VideoChangeFeed;
  let redis: Redis;

  beforeAll(async () => {
    context = await openTestContext();
    feed = context.get(VideoChangeFeed);
    redis = context.get<Redis>(REDIS_CLIENT);
  }, 60_000);

  beforeEach(async () => {
    await context.reset();
    await redis.del(VIDEO_CHANGES_STREAM);
  });

  afterAll(() => context.close());

  /** The changes published after `position`. */
  const changesAfter = async (position: string): Promise<Change[]> => {
    const read = await feed.read(position);
    if (read.kind !== 'changes') throw new Error(`the feed lost position ${position}`);
    return read.changes;
  };

  it("publishes a transaction's writes once it commits, before its promise resolves; a rollback publishes nothing", async () => {
    const [kept, rolledBack] = await seedVideos(context, 2, { objectsPerVideo: 0 });
    const start = await feed.newestPosition();
    await context.dataSource.transaction(async (manager) => {
      await context.videos.applyState(kept!, softDeleted(new Date()), new Date(), { runner: manager });
      // Not before the commit: a reader that read MySQL now would still see the row as it was.
      expect(await changesAfter(start)).toEqual([]);
    });
    expect(await changesAfter(start)).toEqual([{ ids: [kept] }]);

    const afterCommit = await feed.newestPosition();
    await expect(
      context.dataSource.transaction(async (manager) => {
        await context.videos.applyState(rolledBack!, softDeleted(new Date()), new Date(), {
          runner: manager,
        });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await changesAfter(afterCommit)).toEqual([]);
  });

  it('publishes a write outside a transaction as it is made, and a batch too large to name as a reset', async () => {
    const ids = await seedVideos(context, MAX_IDS_PER_CHANGE + 1, { objectsPerVideo: 0 });
    const start = await feed.newestPosition();
    await context.videos.applyState(ids[0]!, softDeleted(new Date()), new Date());
    // A write that matched no row changed nothing, and says nothing.
    await context.videos.applyState(ids[1]!, softDeleted(new Date()), new Date(), { expectedVersion: 99 });
    expect(await changesAfter(start)).toEqual([{ ids: [ids[0]] }]);

    const beforeBatch = await feed.newestPosition();
    await context.dataSource.transaction((manager) =>
      context.get(VideoBatchRepository).writeStates(
        manager,
        ids.map((id) => ({ id, columns: { state: VideoState.Active, deletedAt: null, purgeAt: null } })),
        new Date(),
      ),
    );
    expect(await changesAfter(beforeBatch)).toEqual([{ reset: true }]);
  });

  it('publishes concurrent commits together: the first at once, the others in one entry after it, each resolved once readable', async () => {
    const ids = await seedVideos(context, 20, { objectsPerVideo: 0 });
    const start = await feed.newestPosition();
    const named = (changes: Change[]) => changes.flatMap((change) => ('ids' in change ? change.ids : []));
    await Promise.all(
      ids.map(async (id) => {
        await feed.changed(context.dataSource, [id]);
        expect(named(await changesAfter(start))).toContain(id);
      }),
    );
    expect(await changesAfter(start)).toEqual([{ ids: [ids[0]] }, { ids: ids.slice(1) }]);
  });

  it('publishes the writes that make a row active or not, not those between states no search shows', async () => {
    const [purged, replayed] = await seedVideos(context, 2, { objectsPerVideo: 0 });
    const now = new Date();
    const deleting: NextState = { ...softDeleted(now), state: VideoState.Deleting };
    const start = await feed.newestPosition();
    await context.videos.applyState(purged!, softDeleted(now), now, { from: VideoState.Active });
    // A purge: claimed (soft deleted → deleting), then its row removed.
    await context.videos.applyState(purged!, deleting, now, { from: VideoState.SoftDeleted });
    const claimed = await context.videos.findLifecycle(purged!);
    expect(claimed?.state).toBe(VideoState.Deleting);
    const finished = { video: claimed!, objectsDeleted: 0, purgedAt: now };
    await context.dataSource.transaction((manager) => context.videos.finishDeletions(manager, [finished]));
    expect(await context.videos.findLifecycle(purged!)).toBeUndefined();
    // A replay removes a row a backup brought back, whatever its state: published.
    const [row] = await context.videos.findByIds([replayed!]);
    await context.dataSource.transaction((manager) =>
      context.videos.reapplyDeletions(manager, [
        { ...finished, video: { ...claimed!, ...row!, id: replayed! } },
      ]),
    );
    expect(await changesAfter(start)).toEqual([{ ids: [purged] }, { ids: [replayed] }]);
  });

  it('publishes content imported over existing rows', async () => {
    const [id] = await seedVideos(context, 1, { objectsPerVideo: 0 });
    const [video] = await context.videos.findByIds([id!]);
    const start = await feed.newestPosition();
    await context.videos.upsertContent([{ ...video!, title: 'Renamed' }]);
    expect(await changesAfter(start)).toEqual([{ ids: [id] }]);
  });

  it('tells a reader its position is gone once the stream lost it', async () => {
    await seedVideos(context, 1, { objectsPerVideo: 0 }).then(([id]) =>
      context.videos.applyState(id!, softDeleted(new Date()), new Date()),
    );
    const position = await feed.newestPosition();
    expect(await feed.read(position)).toMatchObject({ kind: 'changes', changes: [] });
    // Redis lost the stream (a flush, a restart without persistence), then a write came.
    await redis.del(VIDEO_CHANGES_STREAM);
    expect(await feed.read(position)).toMatchObject({ kind: 'lost' });
    await redis.xadd(VIDEO_CHANGES_STREAM, '*', 'ids', 'x');
    const lost = await feed.read(position);
    expect(lost.kind).toBe('lost');
    // Read on from the position it gives: nothing more is lost.
    expect(await feed.read(lost.position)).toEqual({ kind: 'changes', changes: [], position: lost.position });
  });
});
