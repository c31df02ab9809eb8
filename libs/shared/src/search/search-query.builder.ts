import type { estypes } from '@elastic/elasticsearch';
import { VideoState } from '../video/video-state';

/** Where words are looked for, and how much a match there counts. */
const FIELDS = ['title^3', 'tags.text^2', 'description'];

export interface SearchCriteria {
  q: string;
  authorId?: string;
  /** Inclusive lower bound, already resolved to an instant. */
  from?: Date;
  /** Inclusive upper bound, already resolved to an instant. */
  to?: Date;
  page: number;
  limit: number;
}

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
 * Builds the Elasticsearch request for a search. The user's text only ever reaches `match`-family
 * queries, which analyse it as plain words: quotes, colons or `AND` are never query syntax.
 */
export function buildSearchRequest(criteria: SearchCriteria, index: string): estypes.SearchRequest {
  const q = criteria.q.trim();
  const filter: estypes.QueryDslQueryContainer[] = [{ term: { state: VideoState.Active } }];
  if (criteria.authorId !== undefined) filter.push({ term: { authorId: criteria.authorId } });
  const published = publishedWithin(criteria.from, criteria.to);
  if (published) filter.push(published);

  return {
    index,
    from: (criteria.page - 1) * criteria.limit,
    size: criteria.limit,
    track_total_hits: true,
    // The answer's fields come from MySQL, the truth; the index only ranks.
    _source: false,
    query: {
      bool: {
        filter,
        // Recall: any word in any field. Exact words score fully; words within a small typo of
        // them count for half, so a typo still finds the video but never outranks the exact match.
        must: [
          {
            bool: {
              should: [
                { multi_match: { query: q, fields: FIELDS, type: 'best_fields', tie_breaker: 0.3 } },
                {
                  multi_match: {
                    query: q,
                    fields: FIELDS,
                    type: 'best_fields',
                    tie_breaker: 0.3,
                    fuzziness: 'AUTO',
                    prefix_length: 1,
                    max_expansions: 20,
                    boost: 0.5,
                  },
                },
              ],
              minimum_should_match: 1,
            },
          },
        ],
        // Precision: every word present, the words as a phrase, the words near each other.
        should: [
          {
            multi_match: {
              query: q,
              fields: ['title^3', 'tags.text^2', 'description'],
              type: 'cross_fields',
              operator: 'and',
              boost: 2,
            },
          },
          { match_phrase: { title: { query: q, slop: 2, boost: 4 } } },
          { match_phrase: { description: { query: q, slop: 4 } } },
          { match: { 'title.shingles': { query: q, boost: 1.5 } } },
        ],
      },
    },
    sort: [
      { _score: { order: 'desc' } },
      { publishedAt: { order: 'desc', missing: '_last' } },
      { id: { order: 'asc' } },
    ],
  };
}
