import type { estypes } from '@elastic/elasticsearch';
import { VideoState } from '../video/video-state';
import { MAX_RESULT_WINDOW } from './search-params';

export const SEARCH_SORTS = ['relevance', 'newest', 'oldest'] as const;
export type SearchSort = (typeof SEARCH_SORTS)[number];

/** The counts a search can add to its answer (docs/contract.md §7.1). */
export const SEARCH_FACETS = ['year', 'author'] as const;
export type SearchFacet = (typeof SEARCH_FACETS)[number];
/** How many values each facet lists, most frequent first. */
export const FACET_SIZE = 20;

export interface SearchCriteria {
  q: string;
  authorId?: string;
  /** Inclusive lower bound, already resolved to an instant. */
  from?: Date;
  /** Inclusive upper bound, already resolved to an instant. */
  to?: Date;
  sort: SearchSort;
  /** Words of `q` the index does not hold, each with the spelling that replaces it (see `corrections`). */
  corrections?: Record<string, string>;
  /** Counts to add over all matches; they select and order nothing, so a cursor ignores them. */
  facets?: readonly SearchFacet[];
}

/**
 * Which part of the ranking to read: `size` hits from position `from` (a page by number), or the
 * hits after a sort position on a point in time (a cursor's page). Both in the complete order.
 */
export type Slice =
  | { kind: 'window'; from: number; size: number }
  | {
      kind: 'after';
      pit: string;
      keepAlive: string;
      searchAfter: estypes.SortResults | undefined;
      size: number;
    };

/** The instants an index's `date` field can hold: years 0000 to 9999. */
const EARLIEST = Date.parse('0000-01-01T00:00:00.000Z');
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * The date filter. A bound beyond the years an index holds (an offset can carry
 * `9999-12-31T23:59:59-00:01` into year 10000) is clamped to them, which selects the same videos;
 * a range wholly outside them matches nothing. Elasticsearch would refuse such a date.
 */
function publishedWithin(from?: Date, to?: Date): estypes.QueryDslQueryContainer | undefined {
  if (!from && !to) return undefined;
  if ((from && from.getTime() > LATEST) || (to && to.getTime() < EARLIEST)) return { match_none: {} };
  const iso = (date: Date) => new Date(Math.min(Math.max(date.getTime(), EARLIEST), LATEST)).toISOString();
  return {
    range: {
      publishedAt: { ...(from ? { gte: iso(from) } : {}), ...(to ? { lte: iso(to) } : {}) },
    },
  };
}

/**
 * The words of a query as the index's standard tokenizer cuts them, near enough: letters and
 * digits, with inner apostrophes (`don't` is one word). Typo corrections are keyed by them.
 */
export const QUERY_WORD = /[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu;

/** `q` with every word the index does not hold replaced by its correction. */
export function correctedText(q: string, corrections: Record<string, string> = {}): string {
  return q.trim().replace(QUERY_WORD, (word) => corrections[word.toLowerCase()] ?? word);
}

/**
 * The scoring part of a search: one `dis_max`, whose score is its best alternative's:
 * - any word in the title (×3), the tags (×2) or the description (×2);
 * - every word in the title (×6) or in the description (×3): all words rank above some;
 * - the words as a phrase in the title, slop 2 (×9): phrase and proximity rank higher.
 * A title match outranks a description-only one at each level. One `dis_max` without a tie breaker
 * lets Elasticsearch skip documents that cannot reach the page, so it costs about what a plain
 * `multi_match` costs; the same signals as separate `should` clauses (summed) cost 1.6–2× as
 * much at 121,713 videos, a tie breaker six times (docs/benchmarking.md). Typos are handled before this
 * query runs (`corrections`), not by fuzzy expansion of every word, which cost five times the
 * plain query at a million videos. The text only ever reaches `match`-family queries, which
 * analyse it as plain words: quotes, colons or `AND` are never syntax.
 */
function rankingQuery(text: string): estypes.QueryDslQueryContainer {
  const match = (field: string, boost: number, operator: 'or' | 'and' = 'or') => ({
    match: { [field]: { query: text, boost, operator } },
  });
  return {
    dis_max: {
      queries: [
        match('title', 3),
        match('tags.text', 2),
        match('description', 2),
        match('title', 6, 'and'),
        match('description', 3, 'and'),
        { match_phrase: { title: { query: text, slop: 2, boost: 9 } } },
      ],
    },
  };
}

function filters(criteria: SearchCriteria): estypes.QueryDslQueryContainer[] {
  const filter: estypes.QueryDslQueryContainer[] = [{ term: { state: VideoState.Active } }];
  if (criteria.authorId !== undefined) filter.push({ term: { authorId: criteria.authorId } });
  const published = publishedWithin(criteria.from, criteria.to);
  if (published) filter.push(published);
  return filter;
}

/**
 * Where videos without a date sort: last in either direction. Explicit instants (the years an index
 * holds) rather than `_last`, whose sort value (a 64-bit extreme) JSON cannot carry back exactly
 * in a cursor.
 */
export const MISSING_DATE = { newest: EARLIEST, oldest: LATEST } as const;

/**
 * The complete order of a sort: relevance ties break by newer `publishedAt`, then `id`, and
 * `id` is unique, so every position is unambiguous (docs/contract.md §7).
 */
function completeSort(sort: SearchSort): estypes.SortCombinations[] {
  const id: estypes.SortCombinations = { id: { order: 'asc' } };
  switch (sort) {
    case 'newest':
      return [{ publishedAt: { order: 'desc', missing: MISSING_DATE.newest } }, id];
    case 'oldest':
      return [{ publishedAt: { order: 'asc', missing: MISSING_DATE.oldest } }, id];
    default:
      return [
        { _score: { order: 'desc' } },
        { publishedAt: { order: 'desc', missing: MISSING_DATE.newest } },
        id,
      ];
  }
}

/** Builds the Elasticsearch request for one slice of a search. */
export function buildSearchRequest(
  criteria: SearchCriteria,
  slice: Slice,
  index: string,
): estypes.SearchRequest {
  const query: estypes.QueryDslQueryContainer = {
    bool: {
      filter: filters(criteria),
      must: rankingQuery(correctedText(criteria.q, criteria.corrections)),
    },
  };
  // Exact up to the window any page can reach, then a lower bound: counting every match of a
  // common word in a million videos costs more than the search itself.
  const common = { query, _source: false, track_total_hits: MAX_RESULT_WINDOW } as const;
  // A date order still reports each item's relevance. Sorted by score, the scores come anyway, and
  // asking for them again makes Elasticsearch score every match: twice the cost, measured.
  const tracked = criteria.sort === 'relevance' ? {} : { track_scores: true };
  return {
    ...common,
    size: slice.size,
    sort: completeSort(criteria.sort),
    ...tracked,
    ...(criteria.facets?.length ? { aggs: facetAggregations(criteria.facets) } : {}),
    // A point in time names its indices itself: the request must not.
    ...(slice.kind === 'after'
      ? {
          pit: { id: slice.pit, keep_alive: slice.keepAlive },
          ...(slice.searchAfter ? { search_after: slice.searchAfter } : {}),
        }
      : { index, from: slice.from }),
  };
}

/**
 * The facets' aggregations, over every match (not only the page): years as a calendar histogram
 * (there are few), authors as the most frequent terms. Each shard reports more authors than are
 * listed, so counts merged from several shards are exact for all but rare ties at the cut.
 */
function facetAggregations(
  facets: readonly SearchFacet[],
): Record<string, estypes.AggregationsAggregationContainer> {
  const aggregations: Record<SearchFacet, estypes.AggregationsAggregationContainer> = {
    year: {
      date_histogram: { field: 'publishedAt', calendar_interval: 'year', min_doc_count: 1, format: 'yyyy' },
    },
    author: { terms: { field: 'authorId', size: FACET_SIZE, shard_size: FACET_SIZE * 5 } },
  };
  return Object.fromEntries(facets.map((facet) => [facet, aggregations[facet]]));
}

export interface FacetCount {
  value: string;
  count: number;
}

type Buckets = { buckets?: { key: string | number; key_as_string?: string; doc_count: number }[] };

/**
 * The counts of each facet asked for, most frequent first (then by value: the later year, the
 * author in alphabetical order), at most `FACET_SIZE` each.
 */
export function facetCounts(
  response: estypes.SearchResponse,
  facets: readonly SearchFacet[],
): Record<string, FacetCount[]> {
  const aggregations = (response.aggregations ?? {}) as Record<string, Buckets>;
  return Object.fromEntries(
    facets.map((facet) => {
      const counts = (aggregations[facet]?.buckets ?? []).map((bucket) => ({
        value: bucket.key_as_string ?? String(bucket.key),
        count: bucket.doc_count,
      }));
      const byValue = (a: FacetCount, b: FacetCount) =>
        facet === 'year' ? b.value.localeCompare(a.value) : a.value.localeCompare(b.value);
      counts.sort((a, b) => b.count - a.count || byValue(a, b));
      return [facet, counts.slice(0, FACET_SIZE)];
    }),
  );
}

/**
 * Finds one video's place in a point in time's complete order: its sort values for this search,
 * whatever its state now (only its score is wanted, so the filters are left out). Its score moved
 * with every change to the index since a cursor was handed out.
 */
export function positionRequest(
  criteria: SearchCriteria,
  pit: { id: string; keepAlive: string },
  id: string,
): estypes.SearchRequest {
  return {
    pit: { id: pit.id, keep_alive: pit.keepAlive },
    size: 1,
    _source: false,
    query: {
      bool: {
        filter: [{ ids: { values: [id] } }],
        must: rankingQuery(correctedText(criteria.q, criteria.corrections)),
      },
    },
    sort: completeSort(criteria.sort),
  };
}

/**
 * Titles that start as `words` do, the last one as the start of a word: a span at the title's
 * start. The prefix takes the 50 most frequent words it can complete, so a single letter cannot
 * expand into thousands of clauses.
 */
function titleStart(words: string[]): estypes.QueryDslQueryContainer | undefined {
  const last = words.at(-1);
  if (!last) return undefined;
  const spans: estypes.QueryDslSpanQuery[] = [
    ...words.slice(0, -1).map((word) => ({ span_term: { title: word } })),
    { span_multi: { match: { prefix: { title: { value: last, rewrite: 'top_terms_50' } } } } },
  ];
  const match: estypes.QueryDslSpanQuery =
    spans.length === 1 ? spans[0]! : { span_near: { clauses: spans, slop: 0, in_order: true } };
  return { span_first: { match, end: words.length, boost: 2 } };
}

/**
 * Titles that complete what a search box holds (docs/contract.md §7.2): every word of `q` in the
 * title, the last one as the start of a word (at most 50 words of the index complete it), titles
 * that start as typed first, then the better match, then the newer video. Active videos only.
 */
export function buildSuggestRequest(q: string, limit: number, index: string): estypes.SearchRequest {
  const text = q.trim();
  const start = titleStart((text.match(QUERY_WORD) ?? []).map((word) => word.toLowerCase()));
  return {
    index,
    size: limit,
    _source: ['title'],
    track_total_hits: false,
    query: {
      bool: {
        filter: [{ term: { state: VideoState.Active } }],
        must: { match_bool_prefix: { title: { query: text, operator: 'and' } } },
        ...(start ? { should: start } : {}),
      },
    },
    sort: completeSort('relevance'),
  };
}

/**
 * Asks the index which words of `q` it holds nowhere (title, description or tags), each with the
 * closest word it does hold: Elasticsearch's term suggester over the `spelling` field, only for
 * missing words (a word that is there costs one dictionary lookup).
 */
export function typoSuggestions(q: string): estypes.SearchSuggester {
  return {
    spelling: {
      text: q,
      term: { field: 'spelling', suggest_mode: 'missing', size: 1, min_word_length: 4, prefix_length: 1 },
    },
  };
}

/**
 * Asks whether the index holds each of `words` anywhere: a size-0 search counting, per word, the
 * documents whose `spelling` field has it. The suggester's "missing" is per shard: with several
 * shards, a word present in one shard but not another comes back with a correction.
 */
export function heldWordsRequest(index: string, words: string[]): estypes.SearchRequest {
  return {
    index,
    size: 0,
    track_total_hits: false,
    aggs: {
      held: {
        filters: { filters: Object.fromEntries(words.map((word) => [word, { term: { spelling: word } }])) },
      },
    },
  };
}

/** The words of `heldWordsRequest` that some document holds. */
export function heldWords(response: estypes.SearchResponse): Set<string> {
  const held = response.aggregations?.held as { buckets?: Record<string, { doc_count: number }> } | undefined;
  return new Set(
    Object.entries(held?.buckets ?? {})
      .filter(([, bucket]) => bucket.doc_count > 0)
      .map(([word]) => word),
  );
}

type SuggestAnswer = Record<string, { text: string; options?: { text: string }[] | { text: string } }[]>;

/** The corrections in `typoSuggestions`' answer: each word the index lacks, with its closest word. */
export function corrections(suggest: SuggestAnswer | undefined): Record<string, string> {
  const found: Record<string, string> = {};
  for (const entry of suggest?.spelling ?? []) {
    const options = Array.isArray(entry.options) ? entry.options : entry.options ? [entry.options] : [];
    if (options[0]) found[entry.text.toLowerCase()] = options[0].text;
  }
  return found;
}
