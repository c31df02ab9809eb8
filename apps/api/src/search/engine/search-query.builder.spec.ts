import type { estypes } from '@elastic/elasticsearch';
import { activeCorrections, typoCandidates, facetCounts } from './search-answers';
import { FACET_SIZE, type SearchCriteria } from './search-criteria';
import { buildSearchRequests, MISSING_DATE, type Slice } from './search-query.builder';
import { buildSuggestRequest } from './suggest-query.builder';

const criteria: SearchCriteria = { q: 'python AND "async"', sort: 'relevance' };
const page3: Slice = { kind: 'window', from: 40, size: 20 };
/** The ranking request of a slice (the one that reads hits). */
const buildSearchRequest = (searched: SearchCriteria, slice: Slice, index: string) =>
  buildSearchRequests(searched, slice, index).rank;

describe('buildSearchRequests', () => {
  it('never parses user text as query syntax', () => {
    const json = JSON.stringify(buildSearchRequests(criteria, page3, 'videos'));
    expect(json).not.toMatch(/query_string|simple_query_string/);
  });

  it('shows only active videos and applies the filters in filter context, to the ranking and the count', () => {
    const { rank: request, count } = buildSearchRequests(
      {
        ...criteria,
        authorId: 'u1',
        from: new Date('2024-01-01T00:00:00Z'),
        to: new Date('2024-12-31T23:59:59.999Z'),
      },
      page3,
      'videos',
    );
    expect(request.query?.bool?.filter).toEqual([
      { term: { state: 'active' } },
      { term: { authorId: 'u1' } },
      { range: { publishedAt: { gte: '2024-01-01T00:00:00.000Z', lte: '2024-12-31T23:59:59.999Z' } } },
    ]);
    expect((count.query?.bool?.filter as unknown[]).slice(0, 3)).toEqual(request.query?.bool?.filter);
  });

  /** The date filter of a search with these bounds (the first filter is always the state). */
  const dateFilter = (from?: string, to?: string) => {
    const bounds = { ...(from ? { from: new Date(from) } : {}), ...(to ? { to: new Date(to) } : {}) };
    const filter = buildSearchRequest({ ...criteria, ...bounds }, page3, 'videos').query?.bool?.filter;
    return Array.isArray(filter) ? filter[1] : undefined;
  };

  it('clamps a bound beyond the years 0000–9999 an index holds, keeping the rest of the range', () => {
    expect(dateFilter('+010000-01-01T00:00:59.000Z', undefined)).toEqual({ match_none: {} });
    expect(dateFilter(undefined, '-000001-12-31T23:59:00.000Z')).toEqual({ match_none: {} });
    expect(dateFilter('2020-01-01T00:00:00.000Z', '+010000-01-01T00:00:59.000Z')).toEqual({
      range: { publishedAt: { gte: '2020-01-01T00:00:00.000Z', lte: '9999-12-31T23:59:59.999Z' } },
    });
    expect(dateFilter('-000001-12-31T23:59:00.000Z', '0001-01-01T00:00:00.000Z')).toEqual({
      range: { publishedAt: { gte: '0000-01-01T00:00:00.000Z', lte: '0001-01-01T00:00:00.000Z' } },
    });
  });

  it('pages with from/size, counts apart exactly up to 10,000 and breaks ties by date then id', () => {
    const { rank: request, count } = buildSearchRequests(criteria, page3, 'videos');
    expect(request.from).toBe(40);
    expect(request.size).toBe(20);
    // The ranking counts nothing, so Elasticsearch may skip documents from its first hits on.
    expect(request.track_total_hits).toBe(false);
    expect(count).toMatchObject({ index: 'videos', size: 0, track_total_hits: 10_000, request_cache: false });
    expect(count.sort).toBeUndefined();
    // Sorted by score, the scores come anyway: track_scores would make Elasticsearch score every match.
    expect(request.track_scores).toBeUndefined();
    expect(request.sort).toEqual([
      { _score: { order: 'desc' } },
      { publishedAt: { order: 'desc', missing: MISSING_DATE.newest } },
      { id: { order: 'asc' } },
    ]);
  });

  /** The alternatives of a search's dis_max. */
  const alternatives = (q: string, fixes?: Record<string, string>) => {
    const request = buildSearchRequest({ ...criteria, q, corrections: fixes }, page3, 'videos');
    return (request.query?.bool?.must as { dis_max: { queries: Record<string, Record<string, object>>[] } })
      .dis_max.queries;
  };

  it('scores with one dis_max over the fields and the all-words, phrase and prefix alternatives', () => {
    const request = buildSearchRequest(criteria, page3, 'videos');
    const scoring = request.query?.bool?.must as { dis_max: { queries: unknown[]; tie_breaker?: number } };
    expect(scoring.dis_max.queries).toHaveLength(7);
    // Stop words are left out where any word may match, kept where every word must.
    const matches = scoring.dis_max.queries.flatMap((query) =>
      Object.values(
        (query as { match?: Record<string, { operator: string; analyzer?: string }> }).match ?? {},
      ),
    );
    expect(matches.filter((match) => match.operator === 'or').map((match) => match.analyzer)).toEqual([
      'video_text_stop',
      'video_text_stop',
      'video_text_stop',
    ]);
    expect(matches.filter((match) => match.operator === 'and').every((match) => !match.analyzer)).toBe(true);
    // A tie breaker keeps Elasticsearch from skipping documents (six times the cost, measured).
    expect(scoring.dis_max.tie_breaker).toBeUndefined();
    expect(JSON.stringify(scoring)).not.toMatch(/fuzziness/);
  });

  it('sorts by date, undated videos last either way, then by id', () => {
    const newest = buildSearchRequest({ ...criteria, sort: 'newest' }, page3, 'v');
    expect(newest.sort).toEqual([
      { publishedAt: { order: 'desc', missing: MISSING_DATE.newest } },
      { id: { order: 'asc' } },
    ]);
    const oldest = buildSearchRequest({ ...criteria, sort: 'oldest' }, page3, 'v');
    expect(oldest.sort).toEqual([
      { publishedAt: { order: 'asc', missing: MISSING_DATE.oldest } },
      { id: { order: 'asc' } },
    ]);
  });

  it('reads a cursor page and counts on its point in time after the position, never by index or offset', () => {
    const { rank: request, count } = buildSearchRequests(
      criteria,
      { kind: 'after', pit: 'p1', keepAlive: '5m', searchAfter: [1.5, 0, 'id-9'], size: 21 },
      'videos',
    );
    expect(request).toMatchObject({
      pit: { id: 'p1', keep_alive: '5m' },
      search_after: [1.5, 0, 'id-9'],
      size: 21,
    });
    expect(request.index).toBeUndefined();
    expect(request.from).toBeUndefined();
    expect(count).toMatchObject({ pit: { id: 'p1', keep_alive: '5m' }, size: 0 });
    expect(count.index).toBeUndefined();
    expect(count.search_after).toBeUndefined();
  });

  it('counts exactly the videos the ranking scores: one of its broad alternatives, unscored', () => {
    for (const q of ['the of', 'is it']) {
      const { rank, count } = buildSearchRequests(
        { ...criteria, q, corrections: { pyhton: 'python' } },
        page3,
        'v',
      );
      const scored = (rank.query?.bool?.must as { dis_max: { queries: object[] } }).dis_max.queries;
      const counted = (count.query?.bool?.filter as object[]).at(-1) as {
        bool: { should: object[]; minimum_should_match: number };
      };
      expect(counted.bool.minimum_should_match).toBe(1);
      // Only stop words: any word in a field matches nothing, so the title as typed, the phrase and
      // all words in the heading (with its stop words) count too.
      expect(counted.bool.should).toEqual(
        scored.filter((query) => !/stems\.description.*"operator":"and"/.test(JSON.stringify(query))),
      );
      // All words in the description matches a subset of what any word there matches.
      expect(scored.length - counted.bool.should.length).toBe(1);
      expect(count.query?.bool?.must).toBeUndefined();
    }
  });

  it('counts through any word and the title as typed when q holds a word that is not a stop word', () => {
    // `its` stems to `it`, a stop word: `a its` is all stop words where any word may match.
    const cases: [string, number][] = [
      ['Pyhton, DEPLOYING añadidos', 4],
      ['data science a', 3],
      ['pandas datafr', 4],
      ['the x', 3],
      ['a its', 6],
    ];
    for (const [q, alternatives] of cases) {
      const { rank, count } = buildSearchRequests(
        { ...criteria, q, corrections: { pyhton: 'python' } },
        page3,
        'v',
      );
      const scored = (rank.query?.bool?.must as { dis_max: { queries: object[] } }).dis_max.queries;
      const counted = (count.query?.bool?.filter as object[]).at(-1) as { bool: { should: object[] } };
      const text = (query: object) => JSON.stringify(query);
      expect(counted.bool.should.map(text)).toHaveLength(alternatives);
      // Each counted alternative is one the ranking scores.
      for (const query of counted.bool.should) expect(scored.map(text)).toContain(text(query));
      if (alternatives < 6) {
        expect(counted.bool.should.map(text).join()).not.toMatch(/match_phrase|heading[^}]*"and"/);
      }
    }
  });

  it('matches stems without accents, corrected where the index lacks one, and the typed words in the phrase and prefix', () => {
    const scored = alternatives('Pyhton, DEPLOYING añadidos', { pyhton: 'python' });
    const anyWord = scored[0];
    const allWords = scored.find((query) => query.match?.['stems.heading']?.['operator' as never] === 'and');
    const phrase = scored.find((query) => query.match_phrase);
    const prefix = scored.find((query) => query.match_bool_prefix);
    expect(anyWord).toMatchObject({ match: { 'stems.heading': { query: 'python deploy anadido' } } });
    expect(allWords?.match?.['stems.heading']).toMatchObject({
      query: 'python deploy anadido',
      operator: 'and',
    });
    // The exact form ranks first: the phrase is the words as typed (folded), not their stems.
    expect(phrase).toEqual({
      match_phrase: { 'folded.title': { query: 'python deploying anadidos', slop: 2, boost: 9 } },
    });
    expect(prefix).toEqual({
      match_bool_prefix: {
        'folded.title': { query: 'python deploying anadidos', operator: 'and', boost: 5 },
      },
    });
    // The last word may still be being typed: its prefix is never corrected.
    const typing = alternatives('deploying pyth', { pyth: 'path' }).find((query) => query.match_bool_prefix);
    expect(typing).toMatchObject({ match_bool_prefix: { 'folded.title': { query: 'deploying pyth' } } });
  });

  it('matches the last word as a prefix only when it has two letters or more', () => {
    expect(alternatives('data science a')).toHaveLength(6);
    expect(alternatives('data science ab')).toHaveLength(7);
    expect(alternatives('日本')).toHaveLength(7);
  });

  it('offers as candidates only the words the index lacks and has close words for', () => {
    const entry = (text: string, ...options: string[]) => ({
      text,
      options: options.map((text) => ({ text })),
    });
    expect(
      typoCandidates({
        spelling: [entry('Pyhton', 'python', 'pylon'), entry('kubernetes'), entry('xqzzy')],
      }),
    ).toEqual({ pyhton: ['python', 'pylon'] });
    expect(typoCandidates(undefined)).toEqual({});
  });

  it('corrects a word no active video holds to its closest candidate an active video holds', () => {
    const answer = (held: string[], offered: string[]) =>
      ({
        aggregations: {
          held: { buckets: Object.fromEntries(held.map((word) => [word, { doc_count: 1 }])) },
          offered: {
            buckets: Object.fromEntries(
              [...offered, 'gone'].map((word) => [word, { doc_count: word === 'gone' ? 0 : 1 }]),
            ),
          },
        },
      }) as unknown as estypes.SearchResponse;
    const candidates = { pyhton: ['gone', 'python', 'pylon'], kuberntes: ['gone'], pandsa: ['pandas'] };
    expect(activeCorrections(candidates, answer(['pandsa'], ['python', 'pylon', 'pandas']))).toEqual({
      pyhton: 'python',
    });
    expect(activeCorrections(candidates, answer([], []))).toEqual({});
  });
});

describe('facets', () => {
  it('aggregates over all matches (in the count) only when asked, each facet once', () => {
    expect(buildSearchRequests(criteria, page3, 'videos').count.aggs).toBeUndefined();
    const { rank, count } = buildSearchRequests({ ...criteria, facets: ['author', 'year'] }, page3, 'videos');
    expect(rank.aggs).toBeUndefined();
    const aggs = count.aggs!;
    expect(Object.keys(aggs).sort()).toEqual(['author', 'year']);
    expect(aggs.author?.terms).toMatchObject({ field: 'authorId', size: FACET_SIZE });
    expect(aggs.year?.date_histogram).toMatchObject({ field: 'publishedAt', calendar_interval: 'year' });
  });

  it('answers the most frequent values first, then the later year or the first author, at most 20', () => {
    const years = Array.from({ length: 25 }, (_, i) => ({
      key: i,
      key_as_string: String(2000 + i),
      doc_count: i % 3,
    }));
    const response = {
      hits: { hits: [] },
      aggregations: {
        year: { buckets: years },
        author: {
          buckets: [
            { key: 'bo', doc_count: 2 },
            { key: 'al', doc_count: 2 },
            { key: 'cy', doc_count: 5 },
          ],
        },
      },
    } as unknown as Parameters<typeof facetCounts>[0];
    const counts = facetCounts(response, ['year', 'author']);
    expect(counts.author).toEqual([
      { value: 'cy', count: 5 },
      { value: 'al', count: 2 },
      { value: 'bo', count: 2 },
    ]);
    expect(counts.year).toHaveLength(FACET_SIZE);
    expect(counts.year!.slice(0, 3)).toEqual([
      { value: '2023', count: 2 },
      { value: '2020', count: 2 },
      { value: '2017', count: 2 },
    ]);
  });
});

describe('buildSuggestRequest', () => {
  it('needs every word in the title, the last as a prefix, and prefers titles that start as typed', () => {
    const request = buildSuggestRequest('  Pandas DatáFr ', 8, 'videos');
    expect(request).toMatchObject({ index: 'videos', size: 8, _source: ['title'] });
    const bool = request.query!.bool!;
    expect(bool.filter).toEqual([{ term: { state: 'active' } }]);
    expect(bool.must).toEqual({
      match_bool_prefix: { 'folded.title': { query: 'pandas datafr', operator: 'and' } },
    });
    // Span terms are not analysed: the words go folded, and the prefix is bounded.
    expect(JSON.stringify(bool.should)).toContain('{"span_term":{"folded.title":"pandas"}}');
    expect(JSON.stringify(bool.should)).toContain(
      '"prefix":{"folded.title":{"value":"datafr","rewrite":"top_terms_50"}}',
    );
    expect((bool.should as { span_first: { end: number } }).span_first.end).toBe(2);
  });

  it('asks nothing of the title start when q has no word (only punctuation)', () => {
    expect(buildSuggestRequest('"(*', 8, 'videos').query!.bool!.should).toBeUndefined();
  });
});
