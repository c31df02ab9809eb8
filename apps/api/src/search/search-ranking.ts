import type { estypes } from '@elastic/elasticsearch';
import { Injectable } from '@nestjs/common';
import { ProblemException } from '@app/shared/http/problem';
import { SearchIndexService } from '@app/shared/search/search-index.service';
import {
  buildSearchRequest,
  completeSort,
  correctedText,
  corrections,
  MISSING_DATE,
  rankingQuery,
  typoSuggestions,
  type SearchCriteria,
  type Slice,
} from '@app/shared/search/search-query.builder';
import type { CursorPosition } from './search-cursor';

/** How long a cursor's point in time lives after each page read through it. */
export const CURSOR_KEEP_ALIVE = '5m';
export const CURSOR_TTL_MS = 5 * 60_000;

export interface RankedHit {
  id: string;
  score: number;
}

/** One page of a search as the index ranks it, before MySQL has its say. */
export interface Ranking {
  hits: RankedHit[];
  /** Matches in the index: exact (`eq`) up to 10,000, a lower bound (`gte`) beyond. */
  total: number;
  relation: 'eq' | 'gte';
  /** Where the page after this one starts; absent on the last page. */
  next?: Omit<CursorPosition, 'page'>;
}

type Hit = estypes.SearchHit;

/** Only what the ranking needs travels back: ids, scores, sort values, the ties' dates, the counts. */
const FILTER_PATH = [
  'pit_id',
  'suggest',
  'hits.total',
  'hits.hits._id',
  'hits.hits._score',
  'hits.hits.sort',
  'hits.hits.fields',
];

/** Relevance ties break by newer `publishedAt`, then `id` (docs/contract.md §7). */
function tieOrder(a: Hit, b: Hit): number {
  const published = (hit: Hit) =>
    Number((hit.fields?.publishedAt as string[] | undefined)?.[0] ?? MISSING_DATE.newest);
  return (b._score ?? 0) - (a._score ?? 0) || published(b) - published(a) || (a._id! < b._id! ? -1 : 1);
}

/**
 * Asks the index for one page of a search. A page by number ranks by score alone (the cheap way:
 * Elasticsearch skips what cannot reach the page) with one hit on each side of the page, and orders
 * ties itself; only when a run of equal scores crosses the page's edge does it ask again in the
 * complete order. A cursor's page reads a point in time after the last hit shown, in the complete
 * order, so a walk neither repeats nor skips a video while the index changes.
 */
@Injectable()
export class SearchRanking {
  constructor(private readonly index: SearchIndexService) {}

  async page(criteria: SearchCriteria, page: number, limit: number): Promise<Ranking> {
    const start = (page - 1) * limit;
    const scored = criteria.sort === 'relevance';
    const before = scored && start > 0 ? 1 : 0;
    const window: Slice = {
      kind: 'window',
      from: start - before,
      size: limit + before + 1,
      complete: !scored,
    };
    let response = await this.run({
      ...buildSearchRequest(criteria, window, this.index.alias),
      suggest: typoSuggestions(criteria.q),
    });
    const fixes = corrections(response.suggest);
    const corrected = Object.keys(fixes).length > 0 ? { ...criteria, corrections: fixes } : criteria;
    if (corrected !== criteria)
      response = await this.run(buildSearchRequest(corrected, window, this.index.alias));

    let hits = response.hits.hits ?? [];
    let onPage = hits.slice(before, before + limit);
    let beyond = hits[before + limit];
    if (scored) {
      const tied = (a?: Hit, b?: Hit) => a !== undefined && b !== undefined && a._score === b._score;
      if (tied(hits[before - 1], onPage[0]) || tied(onPage.at(-1), beyond)) {
        const complete: Slice = { kind: 'window', from: start, size: limit + 1, complete: true };
        response = await this.run(buildSearchRequest(corrected, complete, this.index.alias));
        hits = response.hits.hits ?? [];
        onPage = hits.slice(0, limit);
        beyond = hits[limit];
      } else {
        onPage = [...onPage].sort(tieOrder);
      }
    }
    const last = onPage.at(-1);
    return {
      ...this.counted(response, onPage),
      ...(beyond && last
        ? { next: { after: last.sort ?? this.sortValues(last), lastId: last._id!, corrections: fixes } }
        : {}),
    };
  }

  /** The page after a cursor's position. */
  async after(criteria: SearchCriteria, position: CursorPosition, limit: number): Promise<Ranking> {
    const searched = { ...criteria, corrections: position.corrections };
    let { pit, after } = position;
    if (!pit) {
      // The first page through the cursor: freeze the index from here on, and find the last hit
      // shown again in that frozen view (its score moved with every change since).
      pit = await this.unlessUnavailable(() => this.index.openPointInTime(CURSOR_KEEP_ALIVE));
      if (criteria.sort === 'relevance')
        after = (await this.relocate(searched, pit, position.lastId)) ?? after;
    }
    const slice: Slice = {
      kind: 'after',
      pit,
      keepAlive: CURSOR_KEEP_ALIVE,
      searchAfter: after,
      size: limit + 1,
    };
    let response: estypes.SearchResponse;
    try {
      response = await this.run(buildSearchRequest(searched, slice, this.index.alias));
    } catch (error) {
      if (SearchIndexService.isLostPointInTime(error))
        throw ProblemException.badRequest([{ name: 'cursor', reason: 'cursor has expired; search again' }]);
      throw error;
    }
    const hits = response.hits.hits ?? [];
    const onPage = hits.slice(0, limit);
    const last = onPage.at(-1);
    return {
      ...this.counted(response, onPage),
      ...(hits.length > limit && last
        ? {
            next: {
              pit: response.pit_id ?? pit,
              after: last.sort!,
              lastId: last._id!,
              corrections: position.corrections,
            },
          }
        : {}),
    };
  }

  /** The sort values of a hit of a page ranked by score alone, as the complete order would give them. */
  private sortValues(hit: Hit): estypes.SortResults {
    const published = (hit.fields?.publishedAt as string[] | undefined)?.[0];
    return [hit._score ?? 0, published === undefined ? MISSING_DATE.newest : Number(published), hit._id!];
  }

  /** The complete-order position of `id` in the point in time, or undefined when it is gone from the index. */
  private async relocate(
    criteria: SearchCriteria,
    pit: string,
    id: string,
  ): Promise<estypes.SortResults | undefined> {
    const response = await this.run({
      pit: { id: pit, keep_alive: CURSOR_KEEP_ALIVE },
      size: 1,
      _source: false,
      // Its state may have changed since: only the score is wanted, so the filters are left out.
      query: {
        bool: {
          filter: [{ ids: { values: [id] } }],
          should: rankingQuery(correctedText(criteria.q, criteria.corrections)),
          minimum_should_match: 1,
        },
      },
      sort: completeSort(criteria.sort),
    });
    return response.hits.hits?.[0]?.sort;
  }

  private counted(response: estypes.SearchResponse, onPage: Hit[]): Omit<Ranking, 'next'> {
    const total = response.hits.total;
    return {
      hits: onPage.map((hit) => ({ id: hit._id!, score: hit._score ?? 0 })),
      total: typeof total === 'number' ? total : (total?.value ?? 0),
      relation: typeof total === 'object' && total.relation === 'gte' ? 'gte' : 'eq',
    };
  }

  private run(request: estypes.SearchRequest): Promise<estypes.SearchResponse> {
    return this.unlessUnavailable(() =>
      this.index.search({
        ...request,
        filter_path: FILTER_PATH,
        // A shard that fails (its node lost between the query and the fetch) would otherwise leave
        // a 200 that silently lacks that shard's hits: the search fails instead, is retried on
        // another node, and at worst answers 503.
        allow_partial_search_results: false,
      }),
    );
  }

  /** The index cannot answer: 503 (docs/contract.md §7); any other failure is a fault of ours. */
  private async unlessUnavailable<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (SearchIndexService.isUnavailable(error)) throw ProblemException.unavailable('Search');
      throw error;
    }
  }
}
