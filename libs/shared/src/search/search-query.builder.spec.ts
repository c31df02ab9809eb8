import { buildSearchRequest } from './search-query.builder';

const criteria = { q: 'python AND "async"', page: 3, limit: 20 };

describe('buildSearchRequest', () => {
  it('never parses user text as query syntax', () => {
    const json = JSON.stringify(buildSearchRequest(criteria, 'videos'));
    expect(json).not.toMatch(/query_string|simple_query_string/);
  });

  it('shows only active videos and applies the filters in filter context', () => {
    const request = buildSearchRequest(
      {
        ...criteria,
        authorId: 'u1',
        from: new Date('2024-01-01T00:00:00Z'),
        to: new Date('2024-12-31T23:59:59.999Z'),
      },
      'videos',
    );
    expect(request.query?.bool?.filter).toEqual([
      { term: { state: 'active' } },
      { term: { authorId: 'u1' } },
      { range: { publishedAt: { gte: '2024-01-01T00:00:00.000Z', lte: '2024-12-31T23:59:59.999Z' } } },
    ]);
  });

  /** The date filter of a search with these bounds (the first filter is always the state). */
  const dateFilter = (from?: string, to?: string) => {
    const bounds = { ...(from ? { from: new Date(from) } : {}), ...(to ? { to: new Date(to) } : {}) };
    const filter = buildSearchRequest({ ...criteria, ...bounds }, 'videos').query?.bool?.filter;
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

  it('pages with from/size, counts exactly and breaks ties by date then id', () => {
    const request = buildSearchRequest(criteria, 'videos');
    expect(request.from).toBe(40);
    expect(request.size).toBe(20);
    expect(request.track_total_hits).toBe(true);
    expect(request.sort).toEqual([
      { _score: { order: 'desc' } },
      { publishedAt: { order: 'desc', missing: '_last' } },
      { id: { order: 'asc' } },
    ]);
  });
});
