import type { estypes } from '@elastic/elasticsearch';
import { Injectable } from '@nestjs/common';
import { ProblemException } from '@app/shared/http/problem';
import { stemWord } from '@app/shared/search/search-text';
import type { SynonymTable } from '@app/shared/synonyms/synonym-table';
import { isLostPointInTime, isUnavailable } from './search-errors';
import { MAX_RESULT_WINDOW } from '@app/shared/search/search-params';
import { IndexReads } from './index-reads';
import {
  activeCorrections,
  ranked,
  suggestedTitles,
  viewOf,
  type Ranking,
  type RankPosition,
  type SearchResponses,
  typoCandidates,
} from './search-answers';
import type { SearchCriteria } from './search-criteria';
import {
  buildSearchRequests,
  positionRequest,
  type SearchRequests,
  type Slice,
} from './search-query.builder';
import { activeWordsRequest, buildSuggestRequest, typoSuggestions } from './suggest-query.builder';
import { TypoCorrections } from './typo-corrections';

/** How long a cursor, and the point in time it reads, live after each page read through it. */
export const CURSOR_TTL_MS = 5 * 60_000;
const CURSOR_KEEP_ALIVE = `${CURSOR_TTL_MS / 1_000}s`;

/** The point in time a cursor page was to read is gone (closed, expired, or the engine restarted). */
export class LostPointInTime extends Error {
  constructor() {
    super('the point in time is gone');
  }
}

type Suggested = Parameters<typeof typoCandidates>[0];

/** The corrections of words no synonym rule names. */
function unnamed(corrections: Record<string, string>, synonyms: SynonymTable | undefined) {
  if (!synonyms || synonyms.empty) return corrections;
  return Object.fromEntries(Object.entries(corrections).filter(([word]) => !synonyms.names(stemWord(word))));
}

/** Only what the ranking needs travels back: ids, scores, sort values, the counts, the suggester's verdicts. */
const FILTER_PATH = ['pit_id', 'suggest', 'aggregations', 'hits.total', 'hits.hits._score', 'hits.hits.sort'];
/** A suggestion needs each title and its id. */
const SUGGEST_FILTER_PATH = ['hits.hits._id', 'hits.hits._source'];

/**
 * A search that fails on a shard (its node lost between the query and the fetch) would otherwise
 * answer 200 without that shard's hits: it fails instead, is retried on another node, and at worst
 * answers 503.
 */
function whole(request: estypes.SearchRequest): estypes.SearchRequest {
  return { ...request, allow_partial_search_results: false };
}

/**
 * The API's one reader of the search index, behind its verbs: `rank` a page by number, `follow` a
 * cursor's position on a point in time (`openPointInTime`, `closePointInTime`), `suggest` titles.
 * Everything about asking the index stays in this folder: the requests (`search-query.builder`,
 * `suggest-query.builder`), their framing and retries (`IndexReads`), and what the answers mean
 * (`search-answers`).
 *
 * Every page is ranked in the complete order (score, then newer `publishedAt`, then `id`), one
 * hit beyond the page to know whether another follows, and counted beside it. A page by number
 * reads the live index; a cursor's page reads a point in time after the last hit shown, so a walk
 * neither repeats nor skips a video while the index changes. A word no active video holds is
 * replaced by its closest word that one does (`TypoCorrections` remembers the index's verdicts), so
 * no correction reveals a hidden video. The index unavailable is a 503 (docs/contract.md §7).
 */
@Injectable()
export class SearchEngine {
  private readonly typos = new TypoCorrections();

  constructor(private readonly index: IndexReads) {}

  /** Page `page` of a search, `limit` hits, read from the live index. */
  async rank(criteria: SearchCriteria, page: number, limit: number): Promise<Ranking> {
    const from = (page - 1) * limit;
    // The hit after the page tells whether another follows, unless the page ends at the window.
    const cut = from + limit + 1 > MAX_RESULT_WINDOW;
    const window: Slice = { kind: 'window', from, size: cut ? limit : limit + 1 };
    const requests = (searched: SearchCriteria) => buildSearchRequests(searched, window, this.index.alias);
    // A word a synonym rule names is no typo, whatever the index holds (it finds its synonyms).
    const usable = (found: Record<string, string>) => unnamed(found, criteria.synonyms);
    let fixes = this.typos.lookup(criteria.q);
    let response: SearchResponses;
    if (fixes) {
      fixes = usable(fixes);
      response = await this.run(requests({ ...criteria, corrections: fixes }));
    } else {
      // Words not asked about yet: the suggester rides along with the ranking; only when it finds a
      // word the index lacks does the search run again, with the correction.
      const { rank, count } = requests(criteria);
      response = await this.run({ rank: { ...rank, suggest: typoSuggestions(criteria.q) }, count });
      const suggested = response.rank.suggest as Suggested;
      fixes = await this.activeOnly(typoCandidates(suggested), criteria.q);
      this.typos.learn(criteria.q, fixes);
      fixes = usable(fixes);
      if (Object.keys(fixes).length > 0)
        response = await this.run(requests({ ...criteria, corrections: fixes }));
    }
    return ranked(response, criteria, limit, fixes, cut ? { cutAt: from + limit } : {});
  }

  /**
   * The corrections active videos allow (`activeCorrections`): the suggester's words come from
   * every document the engine still has, and each shard's suggester sees only its own words.
   * Asked only when the suggester offered some word, which a search of known words never does.
   */
  private async activeOnly(candidates: Record<string, string[]>, q: string): Promise<Record<string, string>> {
    const words = Object.keys(candidates);
    if (words.length === 0) return {};
    const offered = [...new Set(Object.values(candidates).flat())];
    const response = await this.unlessUnavailable(() =>
      this.index.search(activeWordsRequest(this.index.alias, words, offered, q)),
    );
    return activeCorrections(candidates, response);
  }

  /** Titles that complete `q`, best first, as the index holds them, widened by `synonyms`. */
  async suggest(q: string, limit: number, synonyms?: SynonymTable): Promise<{ id: string; title: string }[]> {
    const response = await this.unlessUnavailable(() =>
      this.index.search({
        ...buildSuggestRequest(q, limit, this.index.alias, synonyms),
        filter_path: SUGGEST_FILTER_PATH,
      }),
    );
    return suggestedTitles(response);
  }

  /**
   * The page after a cursor's position, read on the point in time `pit` (the walk's, see
   * `CursorWalks`). A position read elsewhere (the live index of a page by number, or a point in
   * time since replaced) is found again in it first: its score moved with every change since.
   * `LostPointInTime` when the point in time is gone.
   */
  async follow(
    criteria: SearchCriteria,
    position: RankPosition,
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
      if (isLostPointInTime(error)) throw new LostPointInTime();
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
    const response = await this.unlessUnavailable(() =>
      this.index.search({
        ...whole(positionRequest(criteria, { id: pit, keepAlive: CURSOR_KEEP_ALIVE }, id)),
        filter_path: FILTER_PATH,
      }),
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

  /** The index cannot answer: 503 (docs/contract.md §7); any other failure is a fault of ours. */
  private async unlessUnavailable<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (isUnavailable(error)) throw ProblemException.unavailable('Search');
      throw error;
    }
  }
}
