import type { estypes } from '@elastic/elasticsearch';
import { VideoState } from '../video/video-state';

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

/**
 * Builds the Elasticsearch request for a search. The user's text only ever reaches `match`-family
 * queries, which analyse it as plain words: quotes, colons or `AND` are never query syntax.
 */
export function buildSearchRequest(criteria: SearchCriteria, index: string): estypes.SearchRequest {
  const q = criteria.q.trim();
  const filter: estypes.QueryDslQueryContainer[] = [{ term: { state: VideoState.Active } }];
  if (criteria.authorId !== undefined) filter.push({ term: { authorId: criteria.authorId } });
  if (criteria.from || criteria.to) {
    filter.push({
      range: {
        publishedAt: {
          ...(criteria.from ? { gte: criteria.from.toISOString() } : {}),
          ...(criteria.to ? { lte: criteria.to.toISOString() } : {}),
        },
      },
    });
  }

  return {
    index,
    from: (criteria.page - 1) * criteria.limit,
    size: criteria.limit,
    track_total_hits: true,
    _source: ['id', 'title', 'description', 'authorId', 'publishedAt', 'tags'],
    query: {
      bool: {
        filter,
        // Recall: any word, in any field, with small typos forgiven.
        must: [
          {
            multi_match: {
              query: q,
              fields: ['title^3', 'tags.text^2', 'description'],
              type: 'most_fields',
              operator: 'or',
              fuzziness: 'AUTO',
              prefix_length: 1,
              max_expansions: 20,
            },
          },
        ],
        // Precision: every word present, the words as a phrase, the words near each other.
        should: [
          {
            multi_match: {
              query: q,
              fields: ['title^4', 'tags.text^2', 'description'],
              type: 'cross_fields',
              operator: 'and',
              boost: 4,
            },
          },
          { match_phrase: { title: { query: q, slop: 2, boost: 6 } } },
          { match_phrase: { description: { query: q, slop: 4, boost: 1.5 } } },
          { match: { 'title.shingles': { query: q, boost: 2 } } },
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
