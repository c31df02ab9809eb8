import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '@app/shared/config/config.module';
import type { AppConfig } from '@app/shared/config/config.schema';
import { MetricsService } from '@app/shared/metrics/metrics.service';
import { JobQueues } from '@app/shared/queue/job-queues.service';
import { VideoRepository } from '@app/shared/video/video.repository';
import type { SearchQuery, SuggestQuery } from './search-query.schema';
import { CursorWalks } from './cursor-walks';
import type { Ranking } from './engine/search-answers';
import type { SearchCriteria } from './engine/search-criteria';
import { CURSOR_TTL_MS, SearchEngine } from './engine/search-engine';
import { callerId } from './point-in-time-leases';
import { fingerprint, newWalk, SearchCursors } from './search-cursor';
import { Highlighter, type Highlights } from './search-highlighter';
import { ItemHeadCache, renderSearchPage, type ItemHead, type RenderedItem } from './search-page.renderer';

@Injectable()
export class VideoSearchService {
  private readonly heads: ItemHeadCache;
  private readonly cursors: SearchCursors;

  constructor(
    private readonly engine: SearchEngine,
    private readonly walks: CursorWalks,
    private readonly videos: VideoRepository,
    private readonly queues: JobQueues,
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.heads = new ItemHeadCache(config.SEARCH_ITEM_CACHE_MB * 2 ** 20);
    this.cursors = new SearchCursors(
      { cursorSecret: config.SEARCH_CURSOR_SECRET, jwtSecret: config.JWT_SECRET },
      CURSOR_TTL_MS,
    );
  }

  /**
   * Ranks in Elasticsearch, then answers from MySQL: every hit is checked against the rows in one
   * query, so a video that is not active never shows even while the index lags. Returns the
   * answer's JSON (docs/contract.md §7, §7.1). `sub` is the caller's: its cursors are its own.
   */
  async search(query: SearchQuery, sub: string): Promise<Buffer> {
    const criteria: SearchCriteria = {
      q: query.q,
      authorId: query.authorId,
      from: query.dateFrom,
      to: query.dateTo,
      sort: query.sort,
      ...(query.facets ? { facets: query.facets } : {}),
    };
    const search = fingerprint(criteria);
    const caller = callerId(sub);
    // A bad cursor is the caller's error, found before the index is asked anything.
    const position =
      query.cursor !== undefined ? this.cursors.decode(query.cursor, search, caller) : undefined;
    const page = position?.page ?? query.page ?? 1;
    const ranking: Ranking = position
      ? await this.walks.page(criteria, position, query.limit, caller)
      : await this.engine.rank(criteria, page, query.limit);

    const ids = ranking.hits.map((hit) => hit.id);
    const highlighter = query.highlight ? new Highlighter(query.q, ranking.corrections) : undefined;
    const { heads, highlights } = highlighter
      ? await this.highlighted(ids, highlighter)
      : { heads: await this.activeHeads(ids), highlights: undefined };

    const items = ranking.hits.flatMap((hit): RenderedItem[] => {
      const head = heads.get(hit.id);
      if (!head) return [];
      return [
        { head, score: hit.score, ...(highlights ? { highlights: highlights.get(hit.id) ?? {} } : {}) },
      ];
    });
    // The hits of this page that MySQL dropped are not counted either (those of other pages are,
    // until the index catches up: counting them would mean checking every match).
    const total = Math.max(0, ranking.total - (ranking.hits.length - items.length));
    // A page by number starts a walk; a cursor's page goes on with its own.
    const nextCursor =
      ranking.next &&
      this.cursors.encode(search, caller, {
        ...ranking.next,
        walk: position?.walk ?? newWalk(),
        page: page + 1,
      });
    return renderSearchPage(items, {
      page,
      limit: query.limit,
      total,
      totalRelation: ranking.relation,
      ...(ranking.facets ? { facets: ranking.facets } : {}),
      ...(nextCursor ? { nextCursor } : {}),
    });
  }

  /** Titles completing `q` for a search box (docs/contract.md §7.2); MySQL has its say as for a search. */
  async suggest(query: SuggestQuery): Promise<{ items: { id: string; title: string }[] }> {
    const suggestions = await this.engine.suggest(query.q, query.limit);
    const ids = suggestions.map((suggestion) => suggestion.id);
    const active = await this.videos.findActiveVersions(ids);
    this.repairStale(ids, active);
    return { items: suggestions.filter((suggestion) => active.has(suggestion.id)) };
  }

  /**
   * The rendered heads of the active videos among `ids`. Reads only their versions first; a video's
   * fields are read (and rendered) again only when its version is not among the rendered heads.
   */
  private async activeHeads(ids: string[]): Promise<Map<string, ItemHead>> {
    const versions = await this.videos.findActiveVersions(ids);
    this.repairStale(ids, versions);
    const heads = new Map<string, ItemHead>();
    const unrendered: string[] = [];
    for (const [id, version] of versions) {
      const head = this.heads.get(id, version);
      if (head) heads.set(id, head);
      else unrendered.push(id);
    }
    this.metrics.searchItemCache.inc({ result: 'hit' }, heads.size);
    this.metrics.searchItemCache.inc({ result: 'miss' }, unrendered.length);
    // A video that left `active` between the two reads is left out, like any other inactive hit.
    for (const video of await this.videos.findActiveByIds(unrendered)) {
      heads.set(video.id, this.heads.render(video));
    }
    return heads;
  }

  /** Heads and highlights of the active videos among `ids`: highlighting needs their text, so all rows are read. */
  private async highlighted(ids: string[], highlighter: Highlighter) {
    const videos = await this.videos.findActiveByIds(ids);
    this.repairStale(ids, new Set(videos.map((video) => video.id)));
    const heads = new Map<string, ItemHead>();
    const highlights = new Map<string, Highlights>();
    for (const video of videos) {
      heads.set(video.id, this.heads.get(video.id, video.version) ?? this.heads.render(video));
      highlights.set(video.id, highlighter.highlight(video));
    }
    return { heads, highlights };
  }

  /** Hits MySQL does not hold as active: the index lags; the index is repaired in the background. */
  private repairStale(ids: string[], active: { has(id: string): boolean }): void {
    for (const id of ids) if (!active.has(id)) void this.queues.queueIndexRepair(id, 'stale');
  }
}
