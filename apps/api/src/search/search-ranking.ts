import type { estypes } from '@elastic/elasticsearch';
import { Injectable } from '@nestjs/common';
import { ProblemException } from '@app/shared/http/problem';
import { SearchIndexService } from '@app/shared/search/search-index.service';
import { MAX_RESULT_WINDOW } from '@app/shared/search/search-params';
import {
  buildSearchRequests,
  buildSuggestRequest,
  corrections,
  facetCounts,
  heldWords,
  heldWordsRequest,
  positionRequest,
  rankedId,
  typoSuggestions,
  type FacetCount,
  type SearchCriteria,
  type SearchRequests,
  type Slice,
} from '@app/shared/search/search-query.builder';
import { viewOf, type CursorPosition } from './search-cursor';
import { TypoCorrections } from './typo-corrections';

/** How long a cursor, and the point in time it reads, live after each page read through it. */
export const CURSOR_TTL_MS = 5 * 60_000;
const CURSOR_KEEP_ALIVE = `${CURSOR_TTL_MS / 1_000}s`;

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
  /** The words of `q` the index lacked, with the words searched instead. */
  corrections: Record<string, string>;
  /** The facets asked for, over all matches. */
  facets?: Record<string, FacetCount[]>;
  /** Where the page after this one starts; absent on the last page. */
  next?: Omit<CursorPosition, 'page' | 'walk'>;
  /** The point in time the page was read on, as the engine last named it. */
  pit?: string;
}

/** The point in time a cursor page was to read is gone (closed, expired, or the engine restarted). */
export class LostPointInTime extends Error {
  constructor() {
    super('the point in time is gone');
  }
}

type Suggested = Parameters<typeof corrections>[0];

/** Only what the ranking needs travels back: ids, scores, sort values, the counts, the suggester's verdicts. */
const FILTER_PATH = ['pit_id', 'suggest', 'aggregations', 'hits.total', 'hits.hits._score', 'hits.hits.sort'];

/**
 * A search that fails on a shard (its node lost between the query and the fetch) would otherwise
 * answer 200 without that shard's hits: it fails instead, is retried on another node, and at worst
 * answers 503.
 */
function whole(request: estypes.SearchRequest): estypes.SearchRequest {
  return { ...request, allow_partial_search_results: false };
}

/** The answers to a slice's two requests (`SearchRequests`). */
interface SearchResponses {
  rank: estypes.SearchResponse;
  count: estypes.SearchResponse;
}

/**
 * The page of a ranking asked for `limit + 1` hits, its count, and where the next page starts
 * when the extra hit says there is one (on `pit`, when the page was read on a point in time). A
 * page that ends at the result window was asked for `limit` hits only (the engine refuses a hit
 * beyond the window): the count says whether more follow (`cutAt`, the window's end).
 */
function ranked(
  { rank, count }: SearchResponses,
  criteria: SearchCriteria,
  limit: number,
  corrections: Record<string, string>,
  { pit, cutAt }: { pit?: string; cutAt?: number } = {},
): Ranking {
  // With no hit, the filtered answer has no `hits` at all.
  const hits = rank.hits?.hits ?? [];
  const onPage = hits.slice(0, limit);
  const last = onPage.at(-1);
  const counted = count.hits?.total;
  const total = typeof counted === 'number' ? counted : (counted?.value ?? 0);
  const relation = typeof counted === 'object' && counted.relation === 'gte' ? 'gte' : 'eq';
  // Counted up to the window: `gte` means more matches than the window holds.
  const more =
    cutAt === undefined
      ? hits.length > limit
      : onPage.length === limit && (relation === 'gte' || total > cutAt);
  return {
    hits: onPage.map((hit) => ({ id: rankedId(hit, criteria.sort), score: hit._score ?? 0 })),
    total,
    relation,
    corrections,
    ...(criteria.facets?.length ? { facets: facetCounts(count, criteria.facets) } : {}),
    ...(pit ? { pit } : {}),
    ...(more && last
      ? {
          next: {
            ...(pit ? { view: viewOf(pit) } : {}),
            after: last.sort!,
            lastId: rankedId(last, criteria.sort),
            corrections,
          },
        }
      : {}),
  };
}

/**
 * Asks the index for one page of a search, always in the complete order (score, then newer
 * `publishedAt`, then `id`), one hit beyond the page to know whether another follows. A page by
 * number reads the live index; a cursor's page reads a point in time after the last hit shown, so
 * a walk neither repeats nor skips a video while the index changes. A word the index holds nowhere
 * is replaced by its closest word (`TypoCorrections` remembers the index's verdicts).
 */
@Injectable()
export class SearchRanking {
  private readonly typos = new TypoCorrections();

  constructor(private readonly index: SearchIndexService) {}

  async page(criteria: SearchCriteria, page: number, limit: number): Promise<Ranking> {
    const from = (page - 1) * limit;
    // The hit after the page tells whether another follows, unless the page ends at the window.
    const cut = from + limit + 1 > MAX_RESULT_WINDOW;
    const window: Slice = { kind: 'window', from, size: cut ? limit : limit + 1 };
    const requests = (searched: SearchCriteria) => buildSearchRequests(searched, window, this.index.alias);
    let fixes = this.typos.lookup(criteria.q);
    let response: SearchResponses;
    if (fixes) {
      response = await this.run(requests({ ...criteria, corrections: fixes }));
    } else {
      // Words not asked about yet: the suggester rides along with the ranking; only when it finds a
      // word the index lacks does the search run again, with the correction.
      const { rank, count } = requests(criteria);
      response = await this.run({ rank: { ...rank, suggest: typoSuggestions(criteria.q) }, count });
      const suggested = response.rank.suggest as Suggested;
      fixes = await this.unlessHeld(corrections(suggested), criteria.q);
      this.typos.learn(criteria.q, fixes);
      if (Object.keys(fixes).length > 0)
        response = await this.run(requests({ ...criteria, corrections: fixes }));
    }
    return ranked(response, criteria, limit, fixes, cut ? { cutAt: from + limit } : {});
  }

  /**
   * The corrections whose word no shard holds in any form (each shard's suggester sees only its
   * own words), and not `q`'s last word when a title word starts with it (it is being typed).
   */
  private async unlessHeld(fixes: Record<string, string>, q: string): Promise<Record<string, string>> {
    const words = Object.keys(fixes);
    if (words.length === 0) return fixes;
    const held = heldWords(
      await this.unlessUnavailable(() => this.index.search(heldWordsRequest(this.index.alias, words, q))),
    );
    return Object.fromEntries(Object.entries(fixes).filter(([word]) => !held.has(word)));
  }

  /** Titles that complete `q`, best first, as the index holds them. */
  async suggestions(q: string, limit: number): Promise<{ id: string; title: string }[]> {
    const response = await this.unlessUnavailable(() =>
      this.index.search({
        ...buildSuggestRequest(q, limit, this.index.alias),
        filter_path: ['hits.hits._id', 'hits.hits._source'],
      }),
    );
    // With no hit, the filtered answer has no `hits` at all.
    return (response.hits?.hits ?? []).map((hit) => ({
      id: hit._id!,
      title: (hit._source as { title: string }).title,
    }));
  }

  /**
   * The page after a cursor's position, read on the point in time `pit` (the walk's, see
   * `CursorWalks`). A position read elsewhere (the live index of a page by number, or a point in
   * time since replaced) is found again in it first: its score moved with every change since.
   * `LostPointInTime` when the point in time is gone.
   */
  async after(
    criteria: SearchCriteria,
    position: Omit<CursorPosition, 'walk' | 'page'>,
    limit: number,
    pit: string,
  ): Promise<Ranking> {
    const searched = { ...criteria, corrections: position.corrections };
    try {
      let after = position.after;
      if (criteria.sort === 'relevance' && position.view !== viewOf(pit))
        after = (await this.relocate(searched, pit, position.lastId)) ?? after;
      const slice: Slice = {
        kind: 'after',
        pit,
        keepAlive: CURSOR_KEEP_ALIVE,
        searchAfter: after,
        size: limit + 1,
      };
      const response = await this.run(buildSearchRequests(searched, slice, this.index.alias));
      return ranked(response, criteria, limit, position.corrections, { pit: response.rank.pit_id ?? pit });
    } catch (error) {
      if (SearchIndexService.isLostPointInTime(error)) throw new LostPointInTime();
      throw error;
    }
  }

  /** A new point in time for a cursor walk: the index frozen as it is now. */
  openPointInTime(): Promise<string> {
    return this.unlessUnavailable(() => this.index.openPointInTime(CURSOR_KEEP_ALIVE));
  }

  /** Frees a walk's point in time at once (its last page was read). */
  closePointInTime(pit: string): Promise<void> {
    return this.index.closePointInTime(pit);
  }

  /** The complete-order position of `id` in the point in time, or undefined when it is gone from the index. */
  private async relocate(
    criteria: SearchCriteria,
    pit: string,
    id: string,
  ): Promise<estypes.SortResults | undefined> {
    const response = await this.read(
      positionRequest(criteria, { id: pit, keepAlive: CURSOR_KEEP_ALIVE }, id),
    );
    return response.hits?.hits?.[0]?.sort;
  }

  /** A slice's ranking and its count, asked together (one `_msearch`). */
  private async run({ rank, count }: SearchRequests): Promise<SearchResponses> {
    const [ranking, counted] = await this.unlessUnavailable(() =>
      this.index.searchTogether([whole(rank), whole(count)], FILTER_PATH),
    );
    return { rank: ranking!, count: counted! };
  }

  private read(request: estypes.SearchRequest): Promise<estypes.SearchResponse> {
    return this.unlessUnavailable(() => this.index.search({ ...whole(request), filter_path: FILTER_PATH }));
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
