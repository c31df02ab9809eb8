import { ProblemException, type ProblemBody } from '@app/shared/http/problem';
import { ZodValidationPipe } from '../../common/zod-validation.pipe';
import fc from 'fast-check';
import { searchCost, searchQuerySchema } from './search-query.schema';

const pipe = new ZodValidationPipe(searchQuerySchema);

function errorsOf(query: Record<string, unknown>): string[] {
  try {
    pipe.transform(query);
  } catch (error) {
    if (!(error instanceof ProblemException)) throw error;
    return (error.body.errors ?? []).map((e) => e.name).sort();
  }
  return [];
}

describe('search query validation (contract §7)', () => {
  it('applies defaults and trims q', () => {
    // `page` stays unset when not given: with a cursor, giving it is an error (the default is 1).
    expect(pipe.transform({ q: '  asyncio ' })).toEqual({
      q: 'asyncio',
      limit: 20,
      sort: 'relevance',
      highlight: false,
    });
  });

  it('resolves date-only bounds to whole days', () => {
    const query = pipe.transform({ q: 'x', dateFrom: '2024-05-01', dateTo: '2024-05-01' });
    expect(query.dateFrom?.toISOString()).toBe('2024-05-01T00:00:00.000Z');
    expect(query.dateTo?.toISOString()).toBe('2024-05-01T23:59:59.999Z');
  });

  it('refuses unknown parameters, naming each (a misspelt name is not silently ignored)', () => {
    expect(errorsOf({ q: 'x', order: 'new', foo: 'bar', Q: 'y' })).toEqual(['Q', 'foo', 'order']);
  });

  it.each([
    [{}, ['q']],
    [{ q: '   ' }, ['q']],
    [{ q: 'x'.repeat(257) }, ['q']],
    [{ q: 'x', authorId: '' }, ['authorId']],
    [{ q: 'x', authorId: 'a'.repeat(129) }, ['authorId']],
    [{ q: 'x', page: '0' }, ['page']],
    [{ q: 'x', page: '1.5' }, ['page']],
    [{ q: 'x', page: '-1' }, ['page']],
    [{ q: 'x', limit: '101' }, ['limit']],
    [{ q: 'x', limit: '0' }, ['limit']],
    [{ q: 'x', limit: '1e2' }, ['limit']],
    [{ q: 'x', dateFrom: '2024-02-30' }, ['dateFrom']],
    [{ q: 'x', dateTo: 'tomorrow' }, ['dateTo']],
    [{ q: 'x', dateFrom: '2024-05-02', dateTo: '2024-05-01' }, ['dateFrom']],
    [{ q: 'x', page: '101', limit: '100' }, ['page']],
    [{ q: ['a', 'b'] }, ['q']],
    [{ q: 'x', page: ['1', '2'], limit: '0' }, ['limit', 'page']],
    [{ q: 'x', sort: 'new' }, ['sort']],
    [{ q: 'x', sort: 'RELEVANCE' }, ['sort']],
    [{ q: 'x', cursor: '' }, ['cursor']],
    [{ q: 'x', cursor: 'abc', page: '1' }, ['page']],
    [{ q: 'x', cursor: 'abc', page: '2' }, ['page']],
  ])('%p is refused naming %p', (query, names) => {
    expect(errorsOf(query)).toEqual(names);
  });

  it('counts characters, not UTF-16 units', () => {
    expect(errorsOf({ q: '😀'.repeat(256), authorId: '😀'.repeat(128) })).toEqual([]);
    expect(errorsOf({ q: '😀'.repeat(257), authorId: '😀'.repeat(129) })).toEqual(['authorId', 'q']);
  });

  it('takes any number of digits: leading zeros are allowed, a huge page fails the window', () => {
    expect(pipe.transform({ q: 'x', page: '0000000000000000002', limit: '007' })).toMatchObject({
      page: 2,
      limit: 7,
    });
    expect(errorsOf({ q: 'x', page: '99999999999999999999999' })).toEqual(['page']);
  });

  it('explains each bad parameter in `detail` as well, the result window included', () => {
    let body: ProblemBody | undefined;
    try {
      pipe.transform({ q: 'x', page: '99999999999999999999999' });
    } catch (error) {
      body = (error as ProblemException).body;
    }
    expect(body?.errors?.map((e) => e.name)).toEqual(['page']);
    const reason = body!.errors![0]!.reason;
    expect(reason).toMatch(/page × limit must not exceed 10000/);
    // …and says how to read further.
    expect(reason).toMatch(/nextCursor/);
    expect(body?.detail).toContain(reason);
  });

  it('accepts the last page inside the window', () => {
    expect(errorsOf({ q: 'x', page: '100', limit: '100' })).toEqual([]);
  });

  it('takes each sort and a cursor without a page', () => {
    for (const sort of ['relevance', 'newest', 'oldest'])
      expect(pipe.transform({ q: 'x', sort })).toMatchObject({ sort });
    expect(pipe.transform({ q: 'x', cursor: 'abc.def', limit: '50' })).toMatchObject({
      cursor: 'abc.def',
      limit: 50,
    });
  });

  it('takes highlight as true or false in any case, and refuses anything else', () => {
    expect(pipe.transform({ q: 'x', highlight: 'TRUE' }).highlight).toBe(true);
    expect(pipe.transform({ q: 'x', highlight: 'false' }).highlight).toBe(false);
    expect(errorsOf({ q: 'x', highlight: 'yes' })).toEqual(['highlight']);
    expect(errorsOf({ q: 'x', highlight: '' })).toEqual(['highlight']);
  });

  it('takes facets as a comma list of year and author, each once, and names an unknown one', () => {
    expect(pipe.transform({ q: 'x', facets: 'year, author,year' }).facets).toEqual(['year', 'author']);
    expect(errorsOf({ q: 'x', facets: 'year,colour' })).toEqual(['facets']);
    expect(errorsOf({ q: 'x', facets: '' })).toEqual(['facets']);
    let body: ProblemBody | undefined;
    try {
      pipe.transform({ q: 'x', facets: 'tags' });
    } catch (error) {
      body = (error as ProblemException).body;
    }
    // Fails when nothing was thrown, too: the reason names the unknown facet.
    expect(body?.errors?.[0]?.reason).toContain('"tags"');
  });
});

describe('search cost against the rate limit', () => {
  it.each([
    [{ q: 'x' }, 1],
    [{ q: 'x', limit: '20' }, 1],
    [{ q: 'x', limit: '21' }, 2],
    [{ q: 'x', limit: '100' }, 5],
    [{ q: 'x', highlight: 'TRUE' }, 2],
    [{ q: 'x', facets: 'year,author,year' }, 3],
    [{ q: 'x', limit: '100', highlight: 'true', facets: 'year,author' }, 12],
    // Refused later by the search's own schema: counted as one request.
    [{ q: 'x', limit: '0' }, 1],
    [{ q: 'x', limit: ['100', '100'] }, 1],
    [{ q: 'x', facets: 'views' }, 1],
  ])('%j costs %d', (query, cost) => {
    expect(searchCost(query)).toBe(cost);
  });

  it('never costs less for more results, highlights or facets', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 99 }),
        fc.boolean(),
        fc.subarray(['year', 'author']),
        (limit, highlight, facets) => {
          const cost = (l: number, h: boolean, f: string[]) =>
            searchCost({
              q: 'x',
              limit: String(l),
              highlight: String(h),
              ...(f.length ? { facets: f.join(',') } : {}),
            });
          const base = cost(limit, highlight, facets);
          expect(base).toBeGreaterThanOrEqual(1);
          expect(cost(limit + 1, highlight, facets)).toBeGreaterThanOrEqual(base);
          expect(cost(limit, true, facets)).toBeGreaterThanOrEqual(base);
          expect(cost(limit, highlight, ['year', 'author'])).toBeGreaterThanOrEqual(base);
        },
      ),
    );
  });
});
