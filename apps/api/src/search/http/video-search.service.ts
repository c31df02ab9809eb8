import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '@app/shared/config/config.module';
import type { AppConfig } from '@app/shared/config/config.schema';
import { criteriaOf, type SearchQuery, type SuggestQuery } from './search-query.schema';
import { CursorWalks } from '../walks/cursor-walks';
import type { Ranking } from '../engine/search-answers';
import { CURSOR_TTL_MS, SearchEngine } from '../engine/search-engine';
import { callerId } from '../../auth/caller-id';
import { fingerprint, newWalk, SearchCursors } from '../walks/search-cursor';
import { ActiveVideos } from '../active/active-videos';
import type { ItemHead } from '../active/item-heads';
import { Highlighter, type Highlights } from './search-highlighter';
import { renderSearchPage, type RenderedItem } from './search-page.renderer';
import { CurrentSynonyms } from '../../synonyms/current-synonyms';

@Injectable()
export class VideoSearchService {
  private readonly cursors: SearchCursors;

  constructor(
    private readonly engine: SearchEngine,
    private readonly walks: CursorWalks,
    private readonly active: ActiveVideos,
    private readonly synonyms: CurrentSynonyms,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.cursors = new SearchCursors(
      { cursorSecret: config.SEARCH_CURSOR_SECRET, jwtSecret: config.JWT_SECRET },
      CURSOR_TTL_MS,
    );
  }

  /**
   * Ranks in Elasticsearch, then shows only the hits MySQL holds as active (`ActiveVideos`), so a
   * video that is not active never shows even while the index lags. Returns the answer's JSON
   * (docs/contract.md §7, §7.1). `sub` is the caller's: its cursors are its own.
   */
  async search(query: SearchQuery, sub: string): Promise<Buffer> {
    const criteria = { ...criteriaOf(query), synonyms: this.synonyms.table };
    const search = fingerprint(criteria);
    const caller = callerId(sub);
    // A bad cursor is the caller's error, found before the index is asked anything.
    const position =
      query.cursor !== undefined ? this.cursors.decode(query.cursor, search, caller) : undefined;
    const page = position?.page ?? query.page ?? 1;
    // What MySQL holds is checked through a read of the change feed that starts after this point.
    const synced = this.active.sync();
    const ranking: Ranking = position
      ? await this.walks.page(criteria, position, query.limit, caller)
      : await this.engine.rank(criteria, page, query.limit);

    const ids = ranking.hits.map((hit) => hit.id);
    const highlighter = query.highlight
      ? new Highlighter(query.q, ranking.corrections, criteria.synonyms)
      : undefined;
    const { heads, highlights } = highlighter
      ? await this.highlighted(ids, highlighter, await synced())
      : { heads: await this.active.heads(ids, await synced()), highlights: undefined };

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
    const synced = this.active.sync();
    const suggestions = await this.engine.suggest(query.q, query.limit, this.synonyms.table);
    const active = await this.active.heads(
      suggestions.map((suggestion) => suggestion.id),
      await synced(),
    );
    return { items: suggestions.filter((suggestion) => active.has(suggestion.id)) };
  }

  /** Heads and highlights of the active videos among `ids`: highlighting needs their text, so their rows are read. */
  private async highlighted(ids: string[], highlighter: Highlighter, synced: boolean) {
    const heads = new Map<string, ItemHead>();
    const highlights = new Map<string, Highlights>();
    for (const { video, head } of await this.active.readRows(ids, synced)) {
      heads.set(video.id, head);
      highlights.set(video.id, highlighter.highlight(video));
    }
    return { heads, highlights };
  }
}
