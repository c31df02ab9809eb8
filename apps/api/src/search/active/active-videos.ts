import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { APP_CONFIG } from '@app/shared/config/config.module';
import type { AppConfig } from '@app/shared/config/config.schema';
import { MetricsService } from '@app/shared/metrics/metrics.service';
import { JobQueues } from '@app/shared/queue/job-queues.service';
import { after, VideoChangeFeed, type Change } from '@app/shared/video/video-change-feed';
import { withTimeout } from '@app/shared/util/with-timeout';
import { VideoRepository, type VideoSummary } from '@app/shared/video/video.repository';
import { ItemHeadCache, renderItemHead, type ItemHead } from './item-heads';

/**
 * How long a copy read from MySQL is shown without asking MySQL again. The change feed drops a
 * copy as soon as its row changes; this bounds what a change the feed never carried (a publish
 * Redis refused for a minute while it answered this process) could show.
 */
export const COPY_LIFETIME_MS = 60_000;

/** How long a search waits for the change feed before it asks MySQL about every hit instead. */
export const FEED_WAIT_MS = 100;

/**
 * What a search may show of its hits: the active videos among them, as MySQL holds them
 * (docs/contract.md §7). MySQL is the truth, and the index may lag it; asking MySQL about every
 * hit of every search was a third of the API's own CPU and most of MySQL's. So this keeps a copy of
 * each active video it read (its rendered head) and drops the copy when the row changes: each
 * search first catches up with the change feed (`VideoChangeFeed`: every committed write's ids,
 * published before the request that made it answers), then shows its copies and asks MySQL about
 * the rest only.
 *
 * - A search catches up with a read of the feed that started after the search did, so a deletion
 *   that answered before the search began is always seen (`sync`). The read starts when the
 *   search needs it (its ranking is back), and serves every search that began before it started:
 *   under load, one read of Redis for several searches, and the search that sends it waits one
 *   round trip.
 * - A copy read from MySQL is kept only when no change was applied while MySQL was asked: a change
 *   committed meanwhile may not show in what MySQL answered.
 * - When the feed cannot be read (Redis away, or slower than `FEED_WAIT_MS`) the search asks MySQL
 *   about every hit, and every copy is dropped once the feed is back: a change published meanwhile
 *   may be lost. The same when the feed lost the position read last (trimmed, or Redis lost it).
 * - A copy lives at most `COPY_LIFETIME_MS`.
 */
@Injectable()
export class ActiveVideos implements OnModuleInit {
  private readonly copies: ItemHeadCache;
  /** The feed's position read last; undefined before the first read. */
  private position: string | undefined;
  /** Whether the copies follow the feed; false from a failed read until the next one succeeds. */
  private following = false;
  /** Moves on whenever copies are dropped, so that a read of MySQL that overlapped it keeps nothing. */
  private generation = 0;
  /** Orders the searches' starts and the feed's reads: a read serves the searches stamped before it. */
  private clock = 0;
  /** The read of the feed started last: its stamp, and whether it caught up. */
  private latest: { stamp: number; caughtUp: Promise<boolean> } | undefined;

  constructor(
    private readonly feed: VideoChangeFeed,
    private readonly videos: VideoRepository,
    private readonly queues: JobQueues,
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) config: Pick<AppConfig, 'SEARCH_ITEM_CACHE_MB'>,
  ) {
    this.copies = new ItemHeadCache(config.SEARCH_ITEM_CACHE_MB * 2 ** 20);
  }

  onModuleInit(): void {
    // This process's own writes reach its copies at once, whatever Redis does.
    this.feed.onLocalChange((change) => this.apply(change));
  }

  /**
   * Marks a search's start. The function it returns catches up with the feed through a read that
   * started after this call (the latest such read, or a new one), and resolves whether the copies
   * may be shown; it never rejects. Call it once the search needs its hits checked.
   */
  sync(): () => Promise<boolean> {
    const started = ++this.clock;
    return () => {
      const latest = this.latest;
      if (latest && latest.stamp > started) return latest.caughtUp;
      const read = { stamp: ++this.clock, caughtUp: this.readFeed() };
      this.latest = read;
      return read.caughtUp;
    };
  }

  /** One read of the feed, given up after `FEED_WAIT_MS` (then the copies are not followed until a read succeeds). */
  private async readFeed(): Promise<boolean> {
    try {
      await withTimeout(this.catchUp(), FEED_WAIT_MS, 'the change feed');
      return true;
    } catch {
      this.following = false;
      return false;
    }
  }

  /**
   * The heads of the active videos among `ids`: copies when `synced` (what `sync` resolved), the
   * rest read from MySQL (`readRows`).
   */
  async heads(ids: string[], synced: boolean): Promise<Map<string, ItemHead>> {
    const notBefore = Date.now() - COPY_LIFETIME_MS;
    const heads = new Map<string, ItemHead>();
    const unknown: string[] = [];
    for (const id of ids) {
      const copy = synced ? this.copies.get(id, notBefore) : undefined;
      if (copy) heads.set(id, copy);
      else unknown.push(id);
    }
    this.metrics.searchItemCache.inc({ result: 'hit' }, heads.size);
    this.metrics.searchItemCache.inc({ result: 'miss' }, unknown.length);
    if (unknown.length > 0)
      for (const { video, head } of await this.readRows(unknown, synced)) heads.set(video.id, head);
    return heads;
  }

  /**
   * The active videos among `ids` as MySQL holds them now, each with its head (a highlighted page
   * reads its rows here: it needs their text). A copy of each is kept when `synced` and no change was
   * applied while MySQL was asked. A hit MySQL does not hold as active means the index lags: its
   * document is repaired in the background.
   */
  async readRows(ids: string[], synced: boolean): Promise<{ video: VideoSummary; head: ItemHead }[]> {
    const readAt = Date.now();
    const generation = this.generation;
    const videos = await this.videos.findActiveByIds(ids);
    // A failed feed read since `synced` drops every copy at the next one (a new generation), so the
    // generation alone says whether what MySQL answered may be kept.
    const keep = synced && generation === this.generation;
    const rows = videos.map((video) => ({ video, head: renderItemHead(video) }));
    for (const { video, head } of rows) if (keep) this.copies.keep(video.id, head, readAt);
    const active = new Set(videos.map((video) => video.id));
    for (const id of ids) if (!active.has(id)) void this.queues.queueIndexRepair(id, 'stale');
    return rows;
  }

  /**
   * One read of the feed, applied; the copies start afresh after a failed read or a lost position.
   * Reads may overlap (a search that began after one was sent sends its own): each applies what it
   * read, and the position only moves forward.
   */
  private async catchUp(): Promise<void> {
    if (this.position === undefined) {
      // Nothing is held yet, and `following` is false: the copies start afresh below.
      const newest = await this.feed.newestPosition();
      this.position ??= newest;
    } else {
      const read = await this.feed.read(this.position);
      if (read.kind === 'lost') this.dropAll();
      else for (const change of read.changes) this.apply(change);
      if (read.kind === 'lost' || after(read.position, this.position)) this.position = read.position;
    }
    if (!this.following) {
      this.dropAll();
      this.following = true;
    }
  }

  private apply(change: Change): void {
    if ('reset' in change) return this.dropAll();
    for (const id of change.ids) this.copies.drop(id);
    this.generation += 1;
  }

  private dropAll(): void {
    this.copies.clear();
    this.generation += 1;
  }
}
