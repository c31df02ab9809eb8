import type { estypes } from '@elastic/elasticsearch';
import { MAX_RESULT_WINDOW } from '@app/shared/search/search-params';
import { foldedWords, stemWord, STOP_WORDS } from '@app/shared/search/search-text';
import { VIDEO_FIELDS as FIELD, type VideoField } from '@app/shared/search/video-index.definition';
import type { SynonymTable } from '@app/shared/synonyms/synonym-table';
import { VideoState } from '@app/shared/video/video-state';
import { FACET_SIZE, type SearchCriteria, type SearchFacet, type SearchSort } from './search-criteria';
import { splitByGroups, synonymGroups, type SynonymGroup } from './synonym-expansion';

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
      [FIELD.publishedAt]: { ...(from ? { gte: iso(from) } : {}), ...(to ? { lte: iso(to) } : {}) },
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
    stems,
    typing: [...words.slice(0, -1), ...typed.slice(-1)].join(' '),
  };
}

/** Whether some stem is no stop word: one that can match where stop words are left out. */
const keyedStems = (stems: readonly string[]) => stems.some((stem) => !STOP_WORDS.has(stem));

/**
 * One field's any-word (`or`) or all-words (`and`) alternative for a query's stems, widened by
 * synonyms when `groups` has some: the words of no group as before, and each group as the best of
 * its own words and each term it also finds (a `dis_max`: a video that holds both counts once).
 * A term of several words matches where all its words are, in any order, as a query's own words
 * do: the stemmed fields keep no positions. Without groups, the one `match` of the plain search.
 */
function wordsQuery(
  field: VideoField,
  stems: readonly string[],
  groups: SynonymGroup[] | undefined,
  boost: number,
  operator: 'or' | 'and',
): estypes.QueryDslQueryContainer {
  // Where any word may match, stop words are left out; all words count them, as the field does.
  const analyzer = operator === 'or' ? { analyzer: ANY_WORD_ANALYZER } : {};
  if (!groups) return { match: { [field]: { query: stems.join(' '), boost, operator, ...analyzer } } };
  const words = (query: readonly string[], all: boolean) => ({
    match: { [field]: { query: query.join(' '), ...(all ? { operator: 'and' as const } : {}), ...analyzer } },
  });
  const { plain, own } = splitByGroups(stems, groups);
  const widened = groups.map((group, at) => ({
    dis_max: {
      queries: [
        words(own[at]!, operator === 'and'),
        ...group.alternatives.map((term) => words(term.stems, true)),
      ],
    },
  }));
  if (operator === 'or') {
    return { bool: { should: [...(plain.length > 0 ? [words(plain, false)] : []), ...widened], boost } };
  }
  // Plain words the field's analyzer drops (stop words in the description) leave no condition.
  const rest =
    plain.length > 0
      ? [{ match: { [field]: { query: plain.join(' '), operator, zero_terms_query: 'all' as const } } }]
      : [];
  return { bool: { must: [...rest, ...widened], boost } };
}

/**
 * Whether the any-word alternatives match every video the all-words ones do: some plain stem is
 * no stop word, or some group's own words hold one and each term it finds does too.
 */
function keyedQuery(stems: readonly string[], groups: SynonymGroup[] | undefined): boolean {
  if (!groups) return keyedStems(stems);
  const { plain, own } = splitByGroups(stems, groups);
  return (
    keyedStems(plain) ||
    groups.some(
      (group, at) => keyedStems(own[at]!) && group.alternatives.every((term) => keyedStems(term.stems)),
    )
  );
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
 *   description (×0.5), stop words left out: `the` or `of` alone would match most videos, through
 *   the longest posting lists of all;
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
 * low seldom can, so most of their long posting lists are skipped (docs/benchmarks.md). A
 * description's words rank through the all-words alternative. Typos are handled before this query
 * runs (`corrections`), not by fuzzy expansion of every word, which would cost many times the
 * plain query on a large catalogue. The text
 * only ever reaches `match`-family queries, which analyse it as plain words: quotes, colons or
 * `AND` are never syntax.
 */
function textQueries(q: string, corrections?: Record<string, string>, synonyms?: SynonymTable) {
  const { words, stems, typing } = queryText(q, corrections);
  const groups = synonymGroups(stems, synonyms);
  const keyed = keyedQuery(stems, groups);
  const match = (field: VideoField, boost: number, operator: 'or' | 'and' = 'or') =>
    wordsQuery(field, stems, groups, boost, operator);
  const last = typing.slice(typing.lastIndexOf(' ') + 1);
  const asTyped: estypes.QueryDslQueryContainer[] =
    [...last].length >= MIN_PREFIX_LETTERS
      ? [{ match_bool_prefix: { [FIELD.foldedTitle]: { query: typing, operator: 'and', boost: 5 } } }]
      : [];
  const anyWord = [
    match(FIELD.headingStems, 2.5),
    match(FIELD.labelStems, 1),
    match(FIELD.descriptionStems, 0.5),
  ];
  // With the stop words the any-word alternatives leave out.
  const precise = [
    { match_phrase: { [FIELD.foldedTitle]: { query: words, slop: 2, boost: 9 } } },
    match(FIELD.headingStems, 6, 'and'),
  ];
  return {
    broad: [...anyWord, ...asTyped, ...precise],
    narrow: [match(FIELD.descriptionStems, 4, 'and')],
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
 * about what a plain `multi_match` costs; separate `should` clauses (summed) or a tie breaker would
 * score every match instead (docs/benchmarks.md).
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
 * too; docs/benchmarks.md).
 */
function matchingQuery({ matching }: TextQueries): estypes.QueryDslQueryContainer {
  return { bool: { should: matching, minimum_should_match: 1 } };
}

/** Only active videos: every search and suggestion filters on it. */
export const activeOnly: estypes.QueryDslQueryContainer = { term: { [FIELD.state]: VideoState.Active } };

function filters(criteria: SearchCriteria): estypes.QueryDslQueryContainer[] {
  const filter: estypes.QueryDslQueryContainer[] = [activeOnly];
  if (criteria.authorId !== undefined) filter.push({ term: { [FIELD.authorId]: criteria.authorId } });
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
  const id: estypes.SortCombinations = { [FIELD.id]: { order: 'asc' } };
  switch (sort) {
    case 'newest':
      return [{ [FIELD.publishedAt]: { order: 'desc', missing: MISSING_DATE.newest } }, id];
    case 'oldest':
      return [{ [FIELD.publishedAt]: { order: 'asc', missing: MISSING_DATE.oldest } }, id];
    default:
      return [
        { _score: { order: 'desc' } },
        { [FIELD.publishedAt]: { order: 'desc', missing: MISSING_DATE.newest } },
        id,
      ];
  }
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
 * skip any (block-max WAND), most of a search's cost on a large catalogue; the ranking alone skips
 * from its first hits, and the count alone only walks posting lists (docs/benchmarks.md).
 */
export function buildSearchRequests(criteria: SearchCriteria, slice: Slice, index: string): SearchRequests {
  const filter = filters(criteria);
  // Folded and stemmed once, for both requests.
  const text = textQueries(criteria.q, criteria.corrections, criteria.synonyms);
  // A point in time names its indices itself: the requests must not.
  const target = slice.kind === 'after' ? { pit: { id: slice.pit, keep_alive: slice.keepAlive } } : { index };
  // A date order still reports each item's relevance. Sorted by score, the scores come anyway, and
  // asking for them again would make Elasticsearch score every match.
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
      date_histogram: {
        field: FIELD.publishedAt,
        calendar_interval: 'year',
        min_doc_count: 1,
        format: 'yyyy',
      },
    },
    author: { terms: { field: FIELD.authorId, size: FACET_SIZE, shard_size: FACET_SIZE * 5 } },
  };
  return Object.fromEntries(facets.map((facet) => [facet, aggregations[facet]]));
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
        must: rankingQuery(textQueries(criteria.q, criteria.corrections, criteria.synonyms)),
      },
    },
    sort: completeSort(criteria.sort),
  };
}
