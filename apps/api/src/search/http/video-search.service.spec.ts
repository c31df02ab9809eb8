import { parseDateBound } from '@app/shared/search/search-params';
import type { AppConfig } from '@app/shared/config/config.schema';
import type { VideoSummary } from '@app/shared/video/video.repository';
import { activeVideosOver, videoSummary } from '@test/fakes/fake-active-videos';
import type { CursorWalks } from '../walks/cursor-walks';
import type { Ranking } from '../engine/search-answers';
import type { SearchCriteria } from '../engine/search-criteria';
import type { SearchEngine } from '../engine/search-engine';
import { callerId } from '../../auth/caller-id';
import type { CursorPosition } from '../walks/search-cursor';
import type { SearchQuery } from './search-query.schema';
import { VideoSearchService } from './video-search.service';
import { SynonymTable } from '@app/shared/synonyms/synonym-table';
import type { CurrentSynonyms } from '../../synonyms/current-synonyms';

/**
 * A ranking (pages by number) and cursor walks (pages after a position) that answer what a test
 * set, and record how they were asked.
 */
class FakeRanking {
  answer: Ranking = { hits: [], total: 0, relation: 'eq', corrections: {} };
  readonly calls: {
    kind: 'page' | 'after';
    criteria: SearchCriteria;
    at: number | CursorPosition;
    caller?: string;
  }[] = [];

  rank(criteria: SearchCriteria, page: number): Promise<Ranking> {
    this.calls.push({ kind: 'page', criteria, at: page });
    return Promise.resolve(this.answer);
  }

  /** `CursorWalks.page`. */
  walk(criteria: SearchCriteria, position: CursorPosition, _limit: number, caller: string): Promise<Ranking> {
    this.calls.push({ kind: 'after', criteria, at: position, caller });
    return Promise.resolve(this.answer);
  }
}

/** MySQL as a map of active rows. */
class FakeVideos {
  constructor(readonly active: Map<string, VideoSummary>) {}

  findActiveByIds(ids: string[]): Promise<VideoSummary[]> {
    return Promise.resolve(ids.flatMap((id) => (this.active.has(id) ? [this.active.get(id)!] : [])));
  }
}

const query = (overrides: Partial<SearchQuery> = {}): SearchQuery => ({
  q: 'okapi',
  dateFrom: undefined,
  dateTo: undefined,
  limit: 2,
  sort: 'relevance',
  highlight: false,
  ...overrides,
});

describe('VideoSearchService', () => {
  let ranking: FakeRanking;
  let videos: FakeVideos;
  let repaired: string[];
  let service: VideoSearchService;

  beforeEach(() => {
    ranking = new FakeRanking();
    videos = new FakeVideos(new Map(['v1', 'v2', 'v3'].map((id) => [id, videoSummary(id)])));
    repaired = [];
    service = new VideoSearchService(
      ranking as unknown as SearchEngine,
      { page: ranking.walk.bind(ranking) } as unknown as CursorWalks,
      activeVideosOver(videos, { repaired }),
      { table: SynonymTable.EMPTY } as CurrentSynonyms,
      { SEARCH_ITEM_CACHE_MB: 1, JWT_SECRET: 's'.repeat(32) } as AppConfig,
    );
  });

  const body = async (q: SearchQuery, sub = 'reader') =>
    JSON.parse((await service.search(q, sub)).toString()) as {
      items: { id: string; score: number }[];
      page: number;
      total: number;
      totalRelation: string;
      nextCursor?: string;
    };

  it('drops hits MySQL says are not active, repairs their documents and counts them out', async () => {
    ranking.answer = {
      hits: [
        { id: 'v1', score: 3 },
        { id: 'gone', score: 2 },
        { id: 'v2', score: 1 },
      ],
      total: 7,
      relation: 'eq',
      corrections: {},
    };
    const answer = await body(query({ limit: 3 }));
    expect(answer.items.map((item) => [item.id, item.score])).toEqual([
      ['v1', 3],
      ['v2', 1],
    ]);
    expect(answer.total).toBe(6);
    expect(repaired).toEqual(['gone']);

    // A highlighted page reads its rows in full, and repairs what MySQL no longer holds the same way.
    const highlighted = await body(query({ limit: 3, highlight: true }));
    expect(highlighted.items.map((item) => item.id)).toEqual(['v1', 'v2']);
    expect(repaired).toEqual(['gone', 'gone']);
  });

  it('hands out a cursor for the next page that leads the ranking there, for this search only', async () => {
    ranking.answer = {
      hits: [
        { id: 'v1', score: 3 },
        { id: 'v2', score: 2 },
      ],
      total: 12_000,
      relation: 'gte',
      corrections: {},
      next: { after: [2, 0, 'v2'], lastId: 'v2', corrections: {} },
    };
    const first = await body(query());
    expect(first).toMatchObject({ page: 1, total: 12_000, totalRelation: 'gte' });
    expect(first.nextCursor).toEqual(expect.any(String));

    ranking.answer = { hits: [{ id: 'v3', score: 1 }], total: 12_000, relation: 'gte', corrections: {} };
    const second = await body(query({ cursor: first.nextCursor }));
    expect(second.page).toBe(2);
    expect(second.nextCursor).toBeUndefined();
    expect(ranking.calls[1]).toMatchObject({
      kind: 'after',
      at: { lastId: 'v2', page: 2, walk: expect.any(String) as unknown },
      caller: callerId('reader'),
    });

    // A cursor's next cursor goes on with the same walk; a page by number starts another.
    ranking.answer = { ...ranking.answer, next: { after: [1, 0, 'v3'], lastId: 'v3', corrections: {} } };
    await body(query({ cursor: (await body(query({ cursor: first.nextCursor }))).nextCursor }));
    await body(query({ cursor: (await body(query())).nextCursor }));
    const walks = ranking.calls
      .filter((call) => call.kind === 'after')
      .map((call) => (call.at as CursorPosition).walk);
    expect(walks.slice(0, 3)).toEqual([walks[0], walks[0], walks[0]]);
    expect(walks[3]).not.toBe(walks[0]);

    const calls = ranking.calls.length;
    await expect(
      service.search(query({ q: 'other', cursor: first.nextCursor }), 'reader'),
    ).rejects.toMatchObject({
      status: 400,
    });
    // Another caller's cursor is refused too: it could keep alive or close the walk's point in time.
    await expect(service.search(query({ cursor: first.nextCursor }), 'intruder')).rejects.toMatchObject({
      status: 400,
    });
    // A refused cursor never reaches the index.
    expect(ranking.calls).toHaveLength(calls);
  });

  it('passes the filters and the sort on to the ranking', async () => {
    const from = parseDateBound('2024-01-01T00:00:00Z', 'from')!;
    await service.search(query({ authorId: 'a1', dateFrom: from, sort: 'oldest', page: 3 }), 'reader');
    expect(ranking.calls[0]).toMatchObject({
      kind: 'page',
      at: 3,
      criteria: { q: 'okapi', authorId: 'a1', from, sort: 'oldest' },
    });
  });

  it('highlights the words searched, corrections included, from the rows MySQL holds', async () => {
    videos.active.set('v1', {
      ...videoSummary('v1', { version: 2 }),
      title: 'Okapi <b>herding</b>',
      description: 'Zebra stripes',
    });
    ranking.answer = {
      hits: [
        { id: 'v1', score: 3 },
        { id: 'v2', score: 1 },
      ],
      total: 2,
      relation: 'eq',
      corrections: { zebar: 'zebra' },
    };
    const answer = (await body(query({ q: 'okapi zebar', highlight: true }))) as unknown as {
      items: { id: string; highlights: Record<string, string[]> }[];
    };
    expect(answer.items[0]!.highlights).toEqual({
      title: ['<mark>Okapi</mark> &lt;b&gt;herding&lt;/b&gt;'],
      description: ['<mark>Zebra</mark> stripes'],
    });
    // Matched nothing it shows (tags, say): an empty object, so every item has the key.
    expect(answer.items[1]).toEqual(expect.objectContaining({ id: 'v2', highlights: {} }));
    expect((await body(query())).items.every((item) => !('highlights' in item))).toBe(true);
  });

  it('asks the ranking for the facets and answers them beside the items', async () => {
    ranking.answer = {
      hits: [{ id: 'v1', score: 3 }],
      total: 1,
      relation: 'eq',
      corrections: {},
      facets: { year: [{ value: '2019', count: 1 }] },
    };
    const answer = (await body(query({ facets: ['year'] }))) as unknown as { facets: unknown };
    expect(ranking.calls[0]!.criteria.facets).toEqual(['year']);
    expect(answer.facets).toEqual({ year: [{ value: '2019', count: 1 }] });
  });
});
