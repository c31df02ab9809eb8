import type { estypes } from '@elastic/elasticsearch';
import { VideoState } from '../video/video-state';
import { MAX_RESULT_WINDOW } from './search-params';
import { foldedWords, stemWord, STOP_WORDS } from './search-text';

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
  /** Folded words of `q` the index does not hold, each with the word that replaces it (see `corrections`). */
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
 * A query's words folded, each word the index lacks replaced by its correction; their stems; and
 * the words with the last one as typed (a word still being typed is no typo).
 */
function queryText(q: string, corrections: Record<string, string> = {}) {
  const typed = foldedWords(q);
  const words = typed.map((word) => corrections[word] ?? word);
  const stems = words.map(stemWord);
  return {
    words: words.join(' '),
    stems: stems.join(' '),
    /** Whether a stem is left where stop words are left out: any-word alternatives that can match. */
    keyed: stems.some((stem) => !STOP_WORDS.has(stem)),
    typing: [...words.slice(0, -1), ...typed.slice(-1)].join(' '),
  };
}

/** Where any word may match, stop words are left out (video-index.definition.ts). */
const ANY_WORD_ANALYZER = 'video_text_stop';

/** The shortest last word that also matches as a prefix: a single letter would match most videos. */
export const MIN_PREFIX_LETTERS = 2;

/**
 * The text part of a search, as two lists of alternatives. The text is folded (no accents, lower
 * case) and stemmed by the application (search-text.ts), so every alternative but the phrase and
 * the prefix matches any inflection of a word.
 *
 * `broad`: a video matches a search when it matches one of these:
 * - any word in the heading (title and speakers: ×2.5), the labels (tags and event: ×1) or the
 *   description (×0.5), stop words left out: `the` or `of` alone matched most videos, through the
 *   longest posting lists of all;
 * - every word in the title with the last one as a prefix (×5): as-you-type. Prefixes of 2–10
 *   letters are indexed terms (one posting list, skipped through like a word's); a longer one
 *   expands to the few words that start with it;
 * - the words as they were typed (folded), as a phrase in the title, slop 2 (×9): phrase and
 *   proximity rank higher, and so does the exact form of a word above its other forms;
 * - every word in the heading, stop words included (×6): all words rank above some.
 *
 * `narrow`: every word in the description (×4), which matches only videos that any word in the
 * description matches too (both without stop words).
 *
 * `matching`: the broad alternatives that decide alone which videos match (`matchingQuery`).
 *
 * The weights of the any-word alternatives decide what a search costs: Elasticsearch skips the
 * documents that cannot reach the page (block-max WAND), and a description or label word weighted
 * low seldom can, so most of their long posting lists are skipped (the description at ×2 cost a
 * third more at a million videos; docs/benchmarking.md). A description's words rank through the
 * all-words alternative. Typos are handled before this query runs (`corrections`), not by fuzzy
 * expansion of every word, which cost five times the plain query at a million videos. The text
 * only ever reaches `match`-family queries, which analyse it as plain words: quotes, colons or
 * `AND` are never syntax.
 */
function textQueries(q: string, corrections?: Record<string, string>) {
  const { words, stems, keyed, typing } = queryText(q, corrections);
  const match = (field: string, boost: number, operator: 'or' | 'and' = 'or') => ({
    match: {
      [field]: {
        query: stems,
        boost,
        operator,
        ...(operator === 'or' ? { analyzer: ANY_WORD_ANALYZER } : {}),
      },
    },
  });
  const last = typing.slice(typing.lastIndexOf(' ') + 1);
  const asTyped: estypes.QueryDslQueryContainer[] =
    [...last].length >= MIN_PREFIX_LETTERS
      ? [{ match_bool_prefix: { 'folded.title': { query: typing, operator: 'and', boost: 5 } } }]
      : [];
  const anyWord = [match('stems.heading', 2.5), match('stems.labels', 1), match('stems.description', 0.5)];
  // With the stop words the any-word alternatives leave out.
  const precise = [
    { match_phrase: { 'folded.title': { query: words, slop: 2, boost: 9 } } },
    match('stems.heading', 6, 'and'),
  ];
  return {
    broad: [...anyWord, ...asTyped, ...precise],
    narrow: [match('stems.description', 4, 'and')],
    // A video in the phrase or with every word in the heading has each of q's stems in its heading,
    // so any word there matches it too, unless every stem is a stop word.
    matching: [...anyWord, ...asTyped, ...(keyed ? [] : precise)],
  };
}

type TextQueries = ReturnType<typeof textQueries>;

/**
 * The scoring part of a search: one `dis_max` of every alternative, whose score is its best
 * alternative's, so a title match outranks a description-only one at each level. One `dis_max`
 * without a tie breaker lets Elasticsearch skip documents that cannot reach the page, so it costs
 * about what a plain `multi_match` costs; the same signals as separate `should` clauses (summed)
 * cost 1.6–2× as much at 121,713 videos, a tie breaker six times (docs/benchmarking.md).
 */
function rankingQuery({ broad, narrow }: TextQueries): estypes.QueryDslQueryContainer {
  return { dis_max: { queries: [...broad, ...narrow] } };
}

/**
 * The videos a search matches, unscored: exactly the set the ranking query scores, through the
 * fewest alternatives that reach it (`matching`: the narrow ones, the phrase and all words in the
 * heading match subsets of the others when q holds a word that is not a stop word). Counting
 * through this filter skips the scoring of every match that counting in the ranking request would
 * need, and each alternative left out is a walk of posting lists saved (the phrase's positions
 * too): 1.08 → 0.70 ms of engine CPU per count at a million videos (docs/benchmarking.md).
 */
function matchingQuery({ matching }: TextQueries): estypes.QueryDslQueryContainer {
  return { bool: { should: matching, minimum_should_match: 1 } };
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
export function completeSort(sort: SearchSort): estypes.SortCombinations[] {
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

/**
 * A ranked hit's id: its value of the complete order's `id` key. The ranking reads no stored
 * field, not even `_id`; on a point in time Elasticsearch appends a key of its own after `id`.
 */
export function rankedId(hit: estypes.SearchHit, sort: SearchSort): string {
  return String(hit.sort![completeSort(sort).length - 1]);
}

/** The two Elasticsearch requests of one slice of a search, sent together. */
export interface SearchRequests {
  /** The slice of the ranking: ids, scores and sort values, nothing counted. */
  rank: estypes.SearchRequest;
  /** How many videos match, exactly up to 10,000, and the facets over them: nothing scored. */
  count: estypes.SearchRequest;
}

/**
 * Builds the requests for one slice of a search. The ranking and the count are asked apart: a
 * request that counts every match up to 10,000 must score each of them before Elasticsearch may
 * skip any (block-max WAND), which at a million videos was most of a search's cost; the ranking
 * alone skips from its first hits, and the count alone only walks posting lists
 * (docs/benchmarking.md).
 */
export function buildSearchRequests(criteria: SearchCriteria, slice: Slice, index: string): SearchRequests {
  const filter = filters(criteria);
  // Folded and stemmed once, for both requests.
  const text = textQueries(criteria.q, criteria.corrections);
  // A point in time names its indices itself: the requests must not.
  const target = slice.kind === 'after' ? { pit: { id: slice.pit, keep_alive: slice.keepAlive } } : { index };
  // A date order still reports each item's relevance. Sorted by score, the scores come anyway, and
  // asking for them again makes Elasticsearch score every match: twice the cost, measured.
  const tracked = criteria.sort === 'relevance' ? {} : { track_scores: true };
  const rank: estypes.SearchRequest = {
    ...target,
    query: { bool: { filter, must: rankingQuery(text) } },
    // Ids come with the sort values (`id` is the complete order's last key): no stored field is
    // read for a hit, not even `_id`, which costs a block of stored fields to decompress per hit.
    stored_fields: ['_none_'],
    track_total_hits: false,
    size: slice.size,
    sort: completeSort(criteria.sort),
    ...tracked,
    ...(slice.kind === 'window' ? { from: slice.from } : {}),
    ...(slice.kind === 'after' && slice.searchAfter ? { search_after: slice.searchAfter } : {}),
  };
  const count: estypes.SearchRequest = {
    ...target,
    query: { bool: { filter: [...filter, matchingQuery(text)] } },
    size: 0,
    // Exact up to the window any page can reach, then a lower bound: counting every match of a
    // common word in a million videos costs more than the search itself.
    track_total_hits: MAX_RESULT_WINDOW,
    // Each count is computed afresh: a live catalogue refreshes its index every second, and a
    // benchmark that repeats its queries would otherwise measure the cache.
    request_cache: false,
    ...(criteria.facets?.length ? { aggs: facetAggregations(criteria.facets) } : {}),
  };
  return { rank, count };
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
        must: rankingQuery(textQueries(criteria.q, criteria.corrections)),
      },
    },
    sort: completeSort(criteria.sort),
  };
}

/** The title's folded words, with its prefixes indexed (video-index.definition.ts). */
const TITLE = 'folded.title';

/**
 * Titles that start as `words` (folded) do, the last one as the start of a word: a span at the
 * title's start. The prefix takes the 50 most frequent words it can complete, so a single letter
 * cannot expand into thousands of clauses.
 */
function titleStart(words: string[]): estypes.QueryDslQueryContainer | undefined {
  const last = words.at(-1);
  if (!last) return undefined;
  const spans: estypes.QueryDslSpanQuery[] = [
    ...words.slice(0, -1).map((word) => ({ span_term: { [TITLE]: word } })),
    { span_multi: { match: { prefix: { [TITLE]: { value: last, rewrite: 'top_terms_50' } } } } },
  ];
  const match: estypes.QueryDslSpanQuery =
    spans.length === 1 ? spans[0]! : { span_near: { clauses: spans, slop: 0, in_order: true } };
  return { span_first: { match, end: words.length, boost: 2 } };
}

/**
 * Titles that complete what a search box holds (docs/contract.md §7.2): every word of `q` in the
 * title (accents and case aside), the last one as the start of a word (an indexed prefix up to 10
 * letters; beyond, at most 50 words of the index complete it), titles that start as typed first,
 * then the better match, then the newer video. Active videos only.
 */
export function buildSuggestRequest(q: string, limit: number, index: string): estypes.SearchRequest {
  const words = foldedWords(q);
  const text = words.join(' ');
  const start = titleStart(words);
  return {
    index,
    size: limit,
    _source: ['title'],
    track_total_hits: false,
    query: {
      bool: {
        filter: [{ term: { state: VideoState.Active } }],
        must: { match_bool_prefix: { [TITLE]: { query: text, operator: 'and' } } },
        ...(start ? { should: start } : {}),
      },
    },
    sort: completeSort('relevance'),
  };
}

/**
 * Asks the index which of `q`'s words (folded) it holds nowhere (heading, description, tags, event),
 * each with the closest word it does hold: Elasticsearch's term suggester over the `spelling`
 * field, only for missing words (a word that is there costs one dictionary lookup).
 */
export function typoSuggestions(q: string): estypes.SearchSuggester {
  return {
    spelling: {
      text: foldedWords(q).join(' '),
      term: { field: 'spelling', suggest_mode: 'missing', size: 1, min_word_length: 4, prefix_length: 1 },
    },
  };
}

const STEM_FIELDS = ['stems.heading', 'stems.description', 'stems.labels'];

/**
 * Asks whether the index holds each of `words` anywhere, as it is or as another form of it: a
 * size-0 search counting, per word, the documents whose `spelling` field has it or whose stems
 * have its stem. A form the index lacks is no typo (`pythons` finds Python through its stem), nor
 * is `q`'s last word when a title word starts with it (`datafr` is being typed, not misspelt);
 * and the suggester's "missing" is per shard: with several shards, a word present in one shard
 * but not another comes back with a correction.
 */
export function heldWordsRequest(index: string, words: string[], q: string): estypes.SearchRequest {
  const last = foldedWords(q).at(-1);
  const held = (word: string): estypes.QueryDslQueryContainer => ({
    bool: {
      should: [
        { term: { spelling: word } },
        ...STEM_FIELDS.map((field) => ({ term: { [field]: stemWord(word) } })),
        ...(word === last && [...word].length >= MIN_PREFIX_LETTERS
          ? [{ prefix: { 'folded.title': word } }]
          : []),
      ],
    },
  });
  return {
    index,
    size: 0,
    track_total_hits: false,
    aggs: { held: { filters: { filters: Object.fromEntries(words.map((word) => [word, held(word)])) } } },
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
