import { errors, type estypes } from '@elastic/elasticsearch';
import { ProblemException } from '@app/shared/http/problem';
import type { SearchIndexService } from '@app/shared/search/search-index.service';
import { MISSING_DATE, type SearchCriteria } from '@app/shared/search/search-query.builder';
import { SearchRanking } from './search-ranking';

interface Doc {
  id: string;
  score: number;
  published: number | null;
}

/**
 * An index that ranks a fixed list the way Elasticsearch does: by score alone with ties in
 * document order (the cheap window), or in the complete sort, after a position on a point in time.
 */
class FakeIndex {
  readonly alias = 'videos';
  readonly requests: estypes.SearchRequest[] = [];
  pits = 0;
  suggest: Record<string, { text: string; options: { text: string }[] }[]> = {};
  fail?: Error;

  constructor(public docs: Doc[]) {}

  openPointInTime(): Promise<string> {
    this.pits += 1;
    return Promise.resolve(`pit-${this.pits}`);
  }

  search(request: estypes.SearchRequest): Promise<estypes.SearchResponse> {
    this.requests.push(request);
    if (this.fail) return Promise.reject(this.fail);
    const idFilter = JSON.stringify(request.query).match(/"ids":\{"values":\["([^"]+)"\]/)?.[1];
    let docs = idFilter ? this.docs.filter((d) => d.id === idFilter) : [...this.docs];
    const key = (d: Doc) => [d.score, d.published ?? MISSING_DATE.newest, d.id] as const;
    if (request.sort) {
      docs.sort((a, b) => b.score - a.score || key(b)[1] - key(a)[1] || (a.id < b.id ? -1 : 1));
      const after = request.search_after as [number, number, string] | undefined;
      if (after) {
        const [score, published, id] = after;
        docs = docs.filter(
          (d) =>
            d.score < score ||
            (d.score === score && (key(d)[1] < published || (key(d)[1] === published && d.id > id))),
        );
      }
    } else {
      docs.sort((a, b) => b.score - a.score); // stable: ties stay in document order
    }
    const from = request.from ?? 0;
    const hits = docs.slice(from, from + (request.size ?? 10)).map((d) => ({
      _index: 'videos',
      _id: d.id,
      _score: d.score,
      ...(request.sort ? { sort: [...key(d)] } : {}),
      ...(d.published !== null ? { fields: { publishedAt: [String(d.published)] } } : {}),
    }));
    return Promise.resolve({
      took: 1,
      timed_out: false,
      _shards: { total: 1, successful: 1, failed: 0 },
      hits: { total: { value: this.docs.length, relation: 'eq' }, hits },
      ...(request.suggest ? { suggest: this.suggest } : {}),
      ...(request.pit ? { pit_id: request.pit.id } : {}),
    } as unknown as estypes.SearchResponse);
  }
}

const criteria: SearchCriteria = { q: 'pandas', sort: 'relevance' };
const ranking = (index: FakeIndex) => new SearchRanking(index as unknown as SearchIndexService);
const doc = (id: string, score: number, published: number | null = 0): Doc => ({ id, score, published });

describe('SearchRanking', () => {
  it('orders ties within a page by newer date, then id, on one cheap request', async () => {
    const index = new FakeIndex([
      doc('c', 2, 10),
      doc('b', 2, 20),
      doc('a', 2, 20),
      doc('z', 1),
      doc('y', 0.5),
    ]);
    const page = await ranking(index).page(criteria, 1, 3);
    expect(page.hits.map((h) => h.id)).toEqual(['a', 'b', 'c']);
    expect(index.requests).toHaveLength(1);
    expect(index.requests[0]!.sort).toBeUndefined();
    expect(page.next).toMatchObject({ lastId: 'c', after: [2, 10, 'c'] });
  });

  it('asks again in the complete order when equal scores cross the edge of the page', async () => {
    // Document order puts the older "old" first; the complete order puts "new" on page 1.
    const index = new FakeIndex([doc('top', 3), doc('old', 2, 1), doc('new', 2, 9), doc('low', 1)]);
    const first = await ranking(index).page(criteria, 1, 2);
    expect(first.hits.map((h) => h.id)).toEqual(['top', 'new']);
    expect(index.requests).toHaveLength(2);
    expect(index.requests[1]!.sort).toBeDefined();
    const second = await ranking(index).page(criteria, 2, 2);
    expect(second.hits.map((h) => h.id)).toEqual(['old', 'low']);
    expect(second.next).toBeUndefined();
  });

  it('sees a tie with the hit just before the page too', async () => {
    const index = new FakeIndex([doc('a', 3), doc('b', 2, 1), doc('c', 2, 5), doc('d', 1)]);
    const second = await ranking(index).page(criteria, 2, 2);
    expect(second.hits.map((h) => h.id)).toEqual(['b', 'd']);
  });

  it('ranks again with the corrections when the index lacks a word, and keeps them for the cursor', async () => {
    const index = new FakeIndex([doc('a', 2), doc('b', 1)]);
    index.suggest = { spelling: [{ text: 'pnadas', options: [{ text: 'pandas' }] }] };
    const page = await ranking(index).page({ ...criteria, q: 'pnadas' }, 1, 1);
    expect(index.requests).toHaveLength(2);
    expect(JSON.stringify(index.requests[1]!.query)).toContain('"pandas"');
    expect(JSON.stringify(index.requests[1]!.query)).not.toContain('pnadas');
    expect(page.next?.corrections).toEqual({ pnadas: 'pandas' });
  });

  it('walks every result once through cursor positions while scores shift underneath', async () => {
    const docs = Array.from({ length: 23 }, (_, i) => doc(`v${String(i).padStart(2, '0')}`, 10 - (i % 7), i));
    const index = new FakeIndex(docs);
    const seen: string[] = [];
    let page = await ranking(index).page(criteria, 1, 5);
    seen.push(...page.hits.map((h) => h.id));
    // Every score moves a little (new statistics): the first cursor page finds its place again.
    for (const d of index.docs) d.score *= 0.97;
    for (let n = 2; page.next; n += 1) {
      page = await ranking(index).after(criteria, { ...page.next, page: n }, 5);
      seen.push(...page.hits.map((h) => h.id));
    }
    expect(seen).toHaveLength(23);
    expect(new Set(seen).size).toBe(23);
    expect(index.pits).toBe(1);
  });

  it('answers 400 when the point in time is gone, 503 when the index is away', async () => {
    const index = new FakeIndex([doc('a', 1)]);
    const lost = new errors.ResponseError({
      body: { error: { type: 'search_context_missing_exception' } },
      statusCode: 404,
      warnings: null,
      meta: {} as never,
    });
    index.fail = lost;
    const position = { pit: 'pit-9', after: [1, 0, 'a'], lastId: 'a', page: 2, corrections: {} };
    await expect(ranking(index).after(criteria, position, 5)).rejects.toMatchObject({ status: 400 });
    index.fail = new errors.ConnectionError('connect ECONNREFUSED');
    const unavailable = await ranking(index)
      .page(criteria, 1, 5)
      .catch((error: unknown) => error);
    expect(unavailable).toBeInstanceOf(ProblemException);
    expect((unavailable as ProblemException).getStatus()).toBe(503);
  });
});
