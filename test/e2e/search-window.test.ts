import type { ProblemBody } from '@app/shared/http/problem';
import type { SearchPage as Page } from '@app/api/search/http/search-query.schema';
import { bootSystem } from '../support/boot';
import { seedVideos } from '../support/seed';
import { searcher, token } from '../support/system';

const reader = token('reader');
/** Videos of the author whose matches fill the window exactly; the other author's push the total past it. */
const FILLING = 10_000;
const BEYOND = 50;

/** The 10,000-result window (docs/contract.md §7): every page inside it answers, the first outside is a 400. */
describe('search at the edge of the result window', () => {
  const boot = bootSystem({
    seed: async (context) => {
      for (let from = 0; from < FILLING; from += 2_000) {
        await seedVideos(context, 2_000, {
          authorId: 'filler',
          title: (i) => `Python window ${from + i}`,
          objectsPerVideo: 0,
        });
      }
      await seedVideos(context, BEYOND, {
        authorId: 'beyond',
        title: (i) => `Python beyond ${i}`,
        objectsPerVideo: 0,
      });
    },
    system: { worker: false },
    timeoutMs: 600_000,
  });

  const search = <T = Page>(query: string) => searcher(() => boot.system, reader)<T>(query);

  it('answers page 100 of 100 (page × limit = 10,000), and its cursor reads on past the window', async () => {
    const { status, body } = await search('q=python&page=100&limit=100');
    expect(status).toBe(200);
    expect(body).toMatchObject({ page: 100, limit: 100, total: 10_000, totalRelation: 'gte' });
    expect(body.items).toHaveLength(100);
    expect(body.nextCursor).toEqual(expect.any(String));
    const next = await search(`q=python&limit=100&cursor=${encodeURIComponent(body.nextCursor!)}`);
    expect(next.status).toBe(200);
    expect(next.body.page).toBe(101);
    expect(next.body.items).toHaveLength(BEYOND);
    expect(next.body.nextCursor).toBeUndefined();
    const shown = new Set([...body.items, ...next.body.items].map((item) => item.id));
    expect(shown.size).toBe(100 + BEYOND);
  });

  it.each([
    [10_000, 1],
    [5_000, 2],
    [400, 25],
    [250, 40],
    [200, 50],
    [125, 80],
  ])('answers page %i with limit %i (10,000) and hands out a cursor', async (page, limit) => {
    const { status, body } = await search(`q=python&page=${page}&limit=${limit}`);
    expect(status).toBe(200);
    expect(body.items).toHaveLength(limit);
    expect(body.nextCursor).toEqual(expect.any(String));
  });

  it('hands out no cursor when the window holds exactly every match', async () => {
    const { status, body } = await search('q=python&authorId=filler&page=100&limit=100');
    expect(status).toBe(200);
    expect(body).toMatchObject({ total: FILLING, totalRelation: 'eq' });
    expect(body.items).toHaveLength(100);
    expect(body.nextCursor).toBeUndefined();
  });

  it.each([
    [9_999, 1],
    [3_333, 3],
    [99, 100],
  ])('answers page %i with limit %i (just inside)', async (page, limit) => {
    const { status, body } = await search(`q=python&page=${page}&limit=${limit}`);
    expect(status).toBe(200);
    expect(body.items).toHaveLength(limit);
  });

  it.each([
    [101, 100],
    [10_001, 1],
    [3_334, 3],
  ])('refuses page %i with limit %i (just above) with a 400 naming page', async (page, limit) => {
    const { status, body } = await search<ProblemBody>(`q=python&page=${page}&limit=${limit}`);
    expect(status).toBe(400);
    expect(body.errors?.map((error) => error.name)).toEqual(['page']);
    expect(body.detail).toMatch(/cursor/);
  });
});
