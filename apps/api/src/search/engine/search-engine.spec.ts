import { errors, type estypes } from '@elastic/elasticsearch';
import { ProblemException } from '@app/shared/http/problem';
import type { IndexReads } from './index-reads';
import type { SearchCriteria } from './search-criteria';
import { LostPointInTime, SearchEngine } from './search-engine';
import { MISSING_DATE } from './search-query.builder';

interface Doc {
  id: string;
  score: number;
  published: number | null;
}

/**
 * An index that ranks a fixed list the way Elasticsearch does in the complete sort, from an
 * offset or after a position on a point in time.
 */
class FakeIndex {
  readonly alias = 'videos';
  /** The rankings (and the held-word counts) asked for. */
  readonly requests: estypes.SearchRequest[] = [];
  /** The counts of matches asked for, beside the rankings. */
  readonly counts: estypes.SearchRequest[] = [];
  /** How many videos the count finds (the fake ranks every doc; a real count follows the filters). */
  matching?: number;
  pits = 0;
  suggest: Record<string, { text: string; options: { text: string }[] }[]> = {};
  fail?: Error;
  /** Words some active video holds (what a size-0 count on `spelling`, filtered to active, finds). */
  held = new Set<string>();

  constructor(public docs: Doc[]) {}

  openPointInTime(): Promise<string> {
    this.pits += 1;
    return Promise.resolve(`pit-${this.pits}`);
  }

  /** As `_msearch` answers: each search as it would alone, a failure as that search's. */
  searchTogether(requests: estypes.SearchRequest[]): Promise<estypes.SearchResponse[]> {
    return Promise.all(requests.map((request) => this.search(request)));
  }

  search(request: estypes.SearchRequest): Promise<estypes.SearchResponse> {
    if (this.fail) return Promise.reject(this.fail);
    if (request.size === 0 && !request.aggs?.held) {
      this.counts.push(request);
      const value = this.matching ?? this.docs.length;
      return Promise.resolve({
        hits: { total: { value: Math.min(value, 10_000), relation: value > 10_000 ? 'gte' : 'eq' } },
        ...(request.aggs
          ? { aggregations: { year: { buckets: [{ key: 1, key_as_string: '2019', doc_count: value }] } } }
          : {}),
      } as never);
    }
    this.requests.push(request);
    if (request.aggs) {
      const count = (name: 'held' | 'offered') => {
        const asked = (request.aggs?.[name]?.filters?.filters ?? {}) as Record<string, unknown>;
        const buckets = Object.fromEntries(
          Object.keys(asked).map((word) => [word, { doc_count: this.held.has(word) ? 1 : 0 }]),
        );
        return { buckets };
      };
      return Promise.resolve({
        hits: { hits: [] },
        aggregations: { held: count('held'), offered: count('offered') },
      } as never);
    }
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
    }
    const from = request.from ?? 0;
    // Like the ranking's answer: no `_id` (no stored field is read), and on a point in time a
    // tie breaker of Elasticsearch's own after the complete order's keys.
    const hits = docs.slice(from, from + (request.size ?? 10)).map((d, i) => ({
      _index: 'videos',
      ...(request.stored_fields ? {} : { _id: d.id }),
      _score: d.score,
      ...(request.sort ? { sort: [...key(d), ...(request.pit ? [from + i] : [])] } : {}),
    }));
    return Promise.resolve({
      took: 1,
      timed_out: false,
      _shards: { total: 1, successful: 1, failed: 0 },
      // The ranking counts nothing (track_total_hits: false): the total is the count's.
      hits: { hits },
      ...(request.suggest ? { suggest: this.suggest } : {}),
      ...(request.pit ? { pit_id: request.pit.id } : {}),
    } as unknown as estypes.SearchResponse);
  }
}

const criteria: SearchCriteria = { q: 'pandas', sort: 'relevance' };
const ranking = (index: FakeIndex) => new SearchEngine(index as unknown as IndexReads);
const doc = (id: string, score: number, published: number | null = 0): Doc => ({ id, score, published });

describe('SearchEngine', () => {
  it('orders ties by newer date, then id, across the pages, one request per page', async () => {
    const index = new FakeIndex([
      doc('top', 3),
      doc('old', 2, 1),
      doc('new', 2, 9),
      doc('c', 2, 9),
      doc('low', 1),
    ]);
    index.suggest = { spelling: [{ text: 'pandas', options: [] }] };
    const first = await ranking(index).rank(criteria, 1, 2);
    const second = await ranking(index).rank(criteria, 2, 2);
    const third = await ranking(index).rank(criteria, 3, 2);
    expect([first, second, third].map((p) => p.hits.map((h) => h.id))).toEqual([
      ['top', 'c'],
      ['new', 'old'],
      ['low'],
    ]);
    expect(index.requests).toHaveLength(3);
    expect(index.requests.every((request) => request.sort !== undefined)).toBe(true);
    expect(first.next).toMatchObject({ lastId: 'c', after: [2, 9, 'c'] });
    expect(third.next).toBeUndefined();
  });

  it('takes the total and the facets from the count asked beside each ranking', async () => {
    const index = new FakeIndex([doc('a', 2), doc('b', 1)]);
    index.matching = 12_345;
    const page = await ranking(index).rank({ ...criteria, facets: ['year'] }, 1, 1);
    expect(index.counts).toHaveLength(1);
    expect(index.requests[0]!.track_total_hits).toBe(false);
    expect(page).toMatchObject({
      total: 10_000,
      relation: 'gte',
      facets: { year: [{ value: '2019', count: 12_345 }] },
    });
    index.matching = 2;
    const search = ranking(index);
    const after = await search.follow(criteria, page.next!, 1, await search.openPointInTime());
    expect(index.counts).toHaveLength(2);
    expect(index.counts[1]!.pit).toEqual(index.requests.at(-1)!.pit);
    expect(after).toMatchObject({ total: 2, relation: 'eq', hits: [{ id: 'b' }] });
  });

  it('ranks again with the corrections when the index lacks a word, and keeps them for the cursor', async () => {
    const index = new FakeIndex([doc('a', 2), doc('b', 1)]);
    index.suggest = { spelling: [{ text: 'pnadas', options: [{ text: 'pandas' }] }] };
    index.held.add('pandas');
    const search = ranking(index);
    const page = await search.rank({ ...criteria, q: 'pnadas' }, 1, 1);
    // Suggester along with the search, a count that no shard holds the word, the corrected search,
    // each search with its count of matches.
    expect(index.requests).toHaveLength(3);
    expect(index.counts).toHaveLength(2);
    expect(JSON.stringify(index.counts[1]!.query)).toContain('"query":"panda"');
    expect(index.requests[1]!.aggs).toBeDefined();
    expect(JSON.stringify(index.requests[2]!.query)).toContain('"pandas"');
    // Only the as-you-type prefix keeps the last word as typed (it may be a word still being typed).
    const matched = JSON.stringify(index.requests[2]!.query).replace(/"match_bool_prefix":\{[^}]*\}/, '');
    expect(matched).not.toContain('pnadas');
    expect(page.next?.corrections).toEqual({ pnadas: 'pandas' });
    // The verdict is remembered: the same words again need neither the suggester nor a second request.
    await search.rank({ ...criteria, q: 'Pnadas' }, 2, 1);
    expect(index.requests).toHaveLength(4);
    expect(index.requests[3]!.suggest).toBeUndefined();
    expect(JSON.stringify(index.requests[3]!.query)).toContain('"pandas"');
  });

  it('never corrects a word some shard holds, though another shard suggests a correction for it', async () => {
    const index = new FakeIndex([doc('a', 2)]);
    index.suggest = { spelling: [{ text: '1104', options: [{ text: '1014' }] }] };
    index.held.add('1104');
    const page = await ranking(index).rank({ ...criteria, q: 'drill 1104' }, 1, 5);
    expect(index.requests).toHaveLength(2);
    expect(page.hits.map((hit) => hit.id)).toEqual(['a']);
    expect(JSON.stringify(index.requests[0]!.query)).toContain('1104');
  });

  it('corrects only to a word an active video holds: the closest such, or none', async () => {
    const index = new FakeIndex([doc('a', 2)]);
    // The closest words are held only by hidden videos (soft-deleted, or deleted but not merged away).
    index.suggest = {
      spelling: [
        { text: 'wombatrex', options: [{ text: 'wombatrix' }, { text: 'wombatrax' }] },
        { text: 'quollex', options: [{ text: 'quollix' }] },
      ],
    };
    index.held.add('wombatrax');
    const search = ranking(index);
    const page = await search.rank({ ...criteria, q: 'wombatrex quollex' }, 1, 1);
    expect(page.corrections).toEqual({ wombatrex: 'wombatrax' });
    const offered = index.requests[1]!;
    expect(offered.query).toEqual({ bool: { filter: [{ term: { state: 'active' } }] } });
    expect(Object.keys(offered.aggs!.offered!.filters!.filters!).sort()).toEqual([
      'quollix',
      'wombatrax',
      'wombatrix',
    ]);
    // Remembered as a verdict of none for the word with no active candidate.
    const again = await search.rank({ ...criteria, q: 'quollex' }, 1, 1);
    expect(again.corrections).toEqual({});
    expect(index.requests.at(-1)!.suggest).toBeUndefined();
  });

  it('asks the suggester along with the first search of new words, and once only when all are held', async () => {
    const index = new FakeIndex([doc('a', 2)]);
    index.suggest = { spelling: [{ text: 'pandas', options: [] }] };
    const search = ranking(index);
    await search.rank(criteria, 1, 5);
    await search.rank(criteria, 1, 5);
    expect(index.requests.map((request) => request.suggest !== undefined)).toEqual([true, false]);
  });

  it('learns every word of q, also one the suggester answers for in words of its own', async () => {
    const index = new FakeIndex([doc('a', 2)]);
    // Elasticsearch's tokenizer cuts Japanese text into single characters: the suggester's entries
    // never name the folded word itself.
    index.suggest = {
      spelling: [...[...'データ'].map((text) => ({ text, options: [] })), { text: 'pandas', options: [] }],
    };
    const search = ranking(index);
    const typed = { ...criteria, q: 'データ pandas' };
    await search.rank(typed, 1, 5);
    await search.rank(typed, 1, 5);
    expect(index.requests.map((request) => request.suggest !== undefined)).toEqual([true, false]);
  });

  it('walks every result once through cursor positions while scores shift underneath', async () => {
    const docs = Array.from({ length: 23 }, (_, i) => doc(`v${String(i).padStart(2, '0')}`, 10 - (i % 7), i));
    const index = new FakeIndex(docs);
    const seen: string[] = [];
    let page = await ranking(index).rank(criteria, 1, 5);
    seen.push(...page.hits.map((h) => h.id));
    // Every score moves a little (new statistics): the first cursor page finds its place again.
    for (const d of index.docs) d.score *= 0.97;
    const pit = await ranking(index).openPointInTime();
    while (page.next) {
      page = await ranking(index).follow(criteria, page.next, 5, pit);
      seen.push(...page.hits.map((h) => h.id));
    }
    expect(seen).toHaveLength(23);
    expect(new Set(seen).size).toBe(23);
    expect(index.pits).toBe(1);
    // Only the first cursor page, read from the live index, looked for its last hit again.
    expect(index.requests.filter((request) => request.size === 1)).toHaveLength(1);
  });

  it('answers a page that ends at the 10,000-result window without asking beyond it', async () => {
    const docs = Array.from({ length: 10_001 }, (_, i) => doc(`v${String(i).padStart(5, '0')}`, 20_000 - i));
    const index = new FakeIndex(docs);
    index.suggest = { spelling: [{ text: 'pandas', options: [] }] };
    for (const limit of [100, 50, 1]) {
      const page = await ranking(index).rank(criteria, 10_000 / limit, limit);
      const asked = index.requests.at(-1)!;
      expect((asked.from ?? 0) + (asked.size ?? 0)).toBe(10_000);
      expect(page.hits).toHaveLength(limit);
      // More than the window holds (the count says `gte`): the cursor reads on.
      expect(page.next).toMatchObject({ lastId: 'v09999' });
    }
    // Exactly the window: the count says so, and no cursor is handed out.
    index.docs = docs.slice(0, 10_000);
    expect((await ranking(index).rank(criteria, 100, 100)).next).toBeUndefined();
    const below = await ranking(index).rank(criteria, 9_999, 1);
    expect(index.requests.at(-1)).toMatchObject({ from: 9_998, size: 2 });
    expect(below.next).toMatchObject({ lastId: 'v09998' });
  });

  it('says when the point in time is gone, and answers 503 when the index is away', async () => {
    const index = new FakeIndex([doc('a', 1)]);
    const lost = new errors.ResponseError({
      body: { error: { type: 'search_context_missing_exception' } },
      statusCode: 404,
      warnings: null,
      meta: {} as never,
    });
    index.fail = lost;
    const position = { after: [1, 0, 'a'], lastId: 'a', corrections: {} };
    await expect(ranking(index).follow(criteria, position, 5, 'pit-9')).rejects.toBeInstanceOf(
      LostPointInTime,
    );
    index.fail = new errors.ConnectionError('connect ECONNREFUSED');
    const unavailable = await ranking(index)
      .rank(criteria, 1, 5)
      .catch((error: unknown) => error);
    expect(unavailable).toBeInstanceOf(ProblemException);
    expect((unavailable as ProblemException).getStatus()).toBe(503);
  });
});
