import { createHash } from 'node:crypto';
import type { estypes } from '@elastic/elasticsearch';
import { FACET_SIZE, type SearchCriteria, type SearchFacet, type SearchSort } from './search-criteria';
import { completeSort } from './search-query.builder';

/** What the engine's answers mean: each request's answer read back into the engine's own terms. */

export interface RankedHit {
  id: string;
  score: number;
}

export interface FacetCount {
  value: string;
  count: number;
}

/** Where the page after a ranked one starts: what following it needs. */
export interface RankPosition {
  /**
   * Which point in time `after` was read on (`viewOf` its id); absent when the page was read from
   * the live index. A position read elsewhere is found again in the point in time the walk reads.
   */
  view?: string;
  /** The sort values of the last hit shown, as the index gave them. */
  after: estypes.SortResults;
  /** The last hit shown: a walk without a point in time finds its position again by it. */
  lastId: string;
  /** The typo corrections of the first page, so every page ranks the same words. */
  corrections: Record<string, string>;
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
  next?: RankPosition;
  /** The point in time the page was read on, as the engine last named it. */
  pit?: string;
}

/** A point in time's short name in a position: compared with the walk's, it never shows the id. */
export function viewOf(pit: string): string {
  return createHash('sha256').update(pit).digest('base64url').slice(0, 11);
}

/**
 * A ranked hit's id: its value of the complete order's `id` key. The ranking reads no stored
 * field, not even `_id`; on a point in time Elasticsearch appends a key of its own after `id`.
 */
export function rankedId(hit: estypes.SearchHit, sort: SearchSort): string {
  return String(hit.sort![completeSort(sort).length - 1]);
}

/** The answers to a slice's two requests (`SearchRequests`). */
export interface SearchResponses {
  rank: estypes.SearchResponse;
  count: estypes.SearchResponse;
}

/**
 * The page of a ranking asked for `limit + 1` hits, its count, and where the next page starts
 * when the extra hit says there is one (on `pit`, when the page was read on a point in time). A
 * page that ends at the result window was asked for `limit` hits only (the engine refuses a hit
 * beyond the window): the count says whether more follow (`cutAt`, the window's end).
 */
export function ranked(
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

type Counted = { buckets?: Record<string, { doc_count: number }> } | undefined;

/** The words of one of `activeWordsRequest`'s counts that some active video holds. */
function counted(response: estypes.SearchResponse, name: 'held' | 'offered'): Set<string> {
  const buckets = (response.aggregations?.[name] as Counted)?.buckets ?? {};
  return new Set(
    Object.entries(buckets)
      .filter(([, bucket]) => bucket.doc_count > 0)
      .map(([word]) => word),
  );
}

type SuggestAnswer = Record<string, { text: string; options?: { text: string }[] | { text: string } }[]>;

/** The words of `typoSuggestions`' answer the index lacks, each with its close words, closest first. */
export function typoCandidates(suggest: SuggestAnswer | undefined): Record<string, string[]> {
  const found: Record<string, string[]> = {};
  for (const entry of suggest?.spelling ?? []) {
    const options = Array.isArray(entry.options) ? entry.options : entry.options ? [entry.options] : [];
    if (options.length > 0) found[entry.text.toLowerCase()] = options.map((option) => option.text);
  }
  return found;
}

/**
 * The corrections `activeWordsRequest`'s answer allows: each word no active video holds, replaced
 * by its closest candidate that an active video holds; a word with no such candidate stays as typed.
 */
export function activeCorrections(
  candidates: Record<string, string[]>,
  response: estypes.SearchResponse,
): Record<string, string> {
  const held = counted(response, 'held');
  const offered = counted(response, 'offered');
  const found: Record<string, string> = {};
  for (const [word, options] of Object.entries(candidates)) {
    const correction = options.find((option) => offered.has(option));
    if (!held.has(word) && correction !== undefined) found[word] = correction;
  }
  return found;
}

/** The titles of `buildSuggestRequest`'s answer, best first. */
export function suggestedTitles(response: estypes.SearchResponse): { id: string; title: string }[] {
  // With no hit, the filtered answer has no `hits` at all.
  return (response.hits?.hits ?? []).map((hit) => ({
    id: hit._id!,
    title: (hit._source as { title: string }).title,
  }));
}
