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
