import fc from 'fast-check';
import type { VideoSummary } from '@app/shared/video/video.repository';
import { activeVideosOver, videoSummary } from '@test/fakes/fake-active-videos';
import { FakeChangeFeed } from '@test/fakes/fake-change-feed';
import { COPY_LIFETIME_MS, type ActiveVideos } from './active-videos';

/** MySQL as a map of active rows, counting the ids it is asked about; `during` runs while a read is under way. */
class FakeVideos {
  readonly rows = new Map(['v1', 'v2', 'v3'].map((id) => [id, videoSummary(id)]));
  asked: string[] = [];
  during: (() => Promise<void>) | undefined;

  async findActiveByIds(ids: string[]): Promise<VideoSummary[]> {
    this.asked.push(...ids);
    const answer = ids.flatMap((id) => (this.rows.has(id) ? [this.rows.get(id)!] : []));
    await this.during?.();
    return answer;
  }
}

describe('ActiveVideos', () => {
  let feed: FakeChangeFeed;
  let videos: FakeVideos;
  let repaired: string[];
  let active: ActiveVideos;

  beforeEach(() => {
    feed = new FakeChangeFeed();
    videos = new FakeVideos();
    repaired = [];
    active = activeVideosOver(videos, { feed, repaired });
  });

  /** One search's check of its hits: what it shows, and which hits MySQL was asked about. */
  const search = async (ids: string[]) => {
    videos.asked = [];
    const heads = await active.heads(ids, await active.sync()());
    return { shown: [...heads.keys()], asked: [...videos.asked] };
  };
  const deleteInMySql = (id: string) => videos.rows.delete(id);

  it('asks MySQL once per video, and again after the feed says the video changed', async () => {
    expect(await search(['v1', 'v2', 'gone'])).toEqual({ shown: ['v1', 'v2'], asked: ['v1', 'v2', 'gone'] });
    expect(repaired).toEqual(['gone']);
    expect(await search(['v1', 'v2'])).toEqual({ shown: ['v1', 'v2'], asked: [] });

    // Another process deletes v1 and publishes it before its request answers.
    deleteInMySql('v1');
    feed.publish({ ids: ['v1'] });
    expect(await search(['v1', 'v2'])).toEqual({ shown: ['v2'], asked: ['v1'] });
  });

  it("hears of this process's own changes at once, before the feed is read", async () => {
    await search(['v1']);
    deleteInMySql('v1');
    feed.down = true;
    feed.publishLocally({ ids: ['v1'] });
    videos.asked = [];
    // Not even a search that could not read the feed shows a copy the process itself knows changed.
    expect([...(await active.heads(['v1'], true)).keys()]).toEqual([]);
  });

  it('keeps nothing MySQL answered while a change was applied: the answer may predate it', async () => {
    videos.during = async () => {
      // The row changes, and another search reads the change from the feed, while MySQL's answer
      // (the old row) is on its way.
      videos.rows.set('v1', videoSummary('v1', { title: 'Renamed' }));
      feed.publish({ ids: ['v1'] });
      await active.sync()();
    };
    await search(['v1']);
    videos.during = undefined;
    const again = await active.heads(['v1'], await active.sync()());
    expect(again.get('v1')!.toString()).toContain('Renamed');
  });

  it('a search waits for a read of the feed that started after it did', async () => {
    await search(['v1']);
    const early = active.sync(); // a search that began before the deletion below
    feed.hold();
    const sent = early(); // its read goes out now
    deleteInMySql('v1');
    feed.publish({ ids: ['v1'] });
    const late = active.sync(); // began after the deletion answered: the read under way is too old
    const lateCaughtUp = late();
    feed.release();
    await sent;
    await new Promise((resolve) => setImmediate(resolve));
    feed.release();
    expect([...(await active.heads(['v1'], await lateCaughtUp)).keys()]).toEqual([]);
  });

  it('serves every search that began before a read with that read', async () => {
    await search(['v1']);
    const searches = Array.from({ length: 10 }, () => active.sync());
    const reads = feed.reads;
    // The first to need its check sends a read; the others began before it and share it.
    expect(await Promise.all(searches.map((caughtUp) => caughtUp()))).toEqual(searches.map(() => true));
    expect(feed.reads - reads).toBe(1);
    // A search that begins now needs a read of its own.
    await active.sync()();
    expect(feed.reads - reads).toBe(2);
  });

  it('never shows a video deleted before the search began, however the reads and answers interleave', async () => {
    const ids = ['v1', 'v2', 'v3'];
    // A step: a search begins; one answer under way (the feed's or MySQL's, chosen by the scheduler)
    // comes back; a video is deleted (in MySQL, then on the feed); or a video changes and stays active
    // (its copies are dropped, and MySQL is asked about it again).
    const step = fc.oneof(
      fc.constant({ kind: 'search' as const }),
      fc.constant({ kind: 'answer' as const }),
      fc.record({ kind: fc.constantFrom('delete' as const, 'change' as const), id: fc.constantFrom(...ids) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), fc.array(step, { maxLength: 30 }), async (s, steps) => {
        const feed = new FakeChangeFeed();
        const videos = new FakeVideos();
        const active = activeVideosOver(videos, { feed });
        await active.heads(ids, await active.sync()()); // the copies are kept
        feed.during = videos.during = () => s.schedule(Promise.resolve());
        const deleted = new Set<string>();
        const searches: Promise<void>[] = [];
        for (const next of steps) {
          if (next.kind === 'answer') {
            if (s.count() > 0) await s.waitNext(1);
          } else if (next.kind === 'search') {
            const deletedBefore = [...deleted];
            const synced = active.sync();
            searches.push(
              (async () => {
                await s.schedule(Promise.resolve()); // the engine ranks, while other reads go out and come back
                const shown = await active.heads(ids, await synced());
                for (const id of deletedBefore) expect(shown.has(id)).toBe(false);
              })(),
            );
          } else {
            if (next.kind === 'delete') {
              videos.rows.delete(next.id);
              deleted.add(next.id);
            }
            feed.publish({ ids: [next.id] });
          }
        }
        // Every answer still under way comes back, those the searches send meanwhile too.
        await s.waitFor(Promise.all(searches));
      }),
      { numRuns: 300 },
    );
  });

  it('asks MySQL about every hit while the feed cannot be read, and starts afresh after', async () => {
    await search(['v1', 'v2']);
    feed.down = true;
    expect(await search(['v1', 'v2'])).toEqual({ shown: ['v1', 'v2'], asked: ['v1', 'v2'] });
    // A change published while the feed was away may be lost: no copy from before is trusted.
    deleteInMySql('v2');
    feed.down = false;
    expect(await search(['v1', 'v2'])).toEqual({ shown: ['v1'], asked: ['v1', 'v2'] });
    expect(await search(['v1'])).toEqual({ shown: ['v1'], asked: [] });
  });

  it('starts afresh when the feed lost its position, or says anything may have changed', async () => {
    await search(['v1', 'v2']);
    feed.publish({ ids: ['v3'] });
    feed.trimmedUpTo = feed.entries.length;
    expect((await search(['v1', 'v2'])).asked).toEqual(['v1', 'v2']);
    feed.publish({ reset: true });
    expect((await search(['v1', 'v2'])).asked).toEqual(['v1', 'v2']);
    expect((await search(['v1', 'v2'])).asked).toEqual([]);
  });

  it('asks MySQL again about a copy older than its lifetime', async () => {
    jest.useFakeTimers({
      doNotFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'nextTick', 'queueMicrotask'],
    });
    try {
      jest.setSystemTime(1_000_000);
      await search(['v1']);
      jest.setSystemTime(1_000_000 + COPY_LIFETIME_MS);
      expect((await search(['v1'])).asked).toEqual([]);
      jest.setSystemTime(1_000_000 + COPY_LIFETIME_MS + 1);
      expect((await search(['v1'])).asked).toEqual(['v1']);
    } finally {
      jest.useRealTimers();
    }
  });
});
