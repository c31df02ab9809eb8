import type { ProblemBody } from '@app/shared/http/problem';
import type { SearchPage as Page } from '@app/api/search/http/search-query.schema';
import { bootSystem } from '../support/boot';
import { sampleValue } from '../support/observability';
import { waitFor } from '../support/processes';
import { seedVideos } from '../support/seed';
import { call, searcher, token } from '../support/system';

const reader = token('reader');
const admin = token('boss', ['admin']);

/** Cursor paging (docs/contract.md §7) on the real services: walks, refusals, sorts. */
describe('search cursors (contract §7)', () => {
  let seeded: string[];
  const boot = bootSystem({
    seed: async (context) => {
      // 240 matches with many distinct scores (1–3 repetitions of the word, titles of several
      // lengths) and many exact ties (same words, same length): both kinds of page edge occur.
      seeded = await seedVideos(context, 240, {
        title: (i) => `${'okapi '.repeat(1 + (i % 3))}walk ${['a', 'bb cc', 'dd ee ff'][i % 3]!} ${i % 5}`,
        publishedAt: (i) => new Date(Date.UTC(2020, 0, 1 + (i % 40))),
      });
    },
    system: { worker: false },
    timeoutMs: 180_000,
  });

  const search = <T = Page>(query: string) => searcher(() => boot.system, reader)<T>(query);

  it('walks every active video once while others are deleted between the pages', async () => {
    const deleted = new Set<string>();
    // Deletes spread over the walk: from the middle, the end and the start of the ranking.
    const victims = [...seeded].sort().filter((_, i) => i % 12 === 5);
    const planned = victims.length;
    const seen: string[] = [];
    let body = (await search('q=okapi+walk&limit=25')).body;
    expect(body).toMatchObject({ page: 1, total: 240, totalRelation: 'eq' });
    const pages = [body.page];
    for (;;) {
      seen.push(...body.items.map((item) => item.id));
      if (!body.nextCursor) break;
      for (const id of victims.splice(0, 3)) {
        expect((await call('DELETE', `${boot.system.api}/api/videos/${id}`, admin)).status).toBe(200);
        deleted.add(id);
      }
      // The deletions reach the index's statistics: every score of the walk moves.
      await boot.context.indexAdmin.refresh();
      const next = await search(`q=okapi+walk&limit=25&cursor=${encodeURIComponent(body.nextCursor)}`);
      expect(next.status).toBe(200);
      body = next.body;
      pages.push(body.page);
    }
    expect(deleted.size).toBe(planned);
    expect(new Set(seen).size).toBe(seen.length);
    const stayed = seeded.filter((id) => !deleted.has(id));
    expect(stayed.filter((id) => !seen.includes(id))).toEqual([]);
    expect(pages).toEqual(pages.map((_, i) => i + 1));
  }, 120_000);

  it('walks newest first, equal dates in id order, across pages of changing size', async () => {
    const seen: Page['items'] = [];
    let cursor = '';
    for (let limit = 7; ; limit = limit === 7 ? 30 : 7) {
      const { status, body } = await search(`q=okapi&sort=newest&limit=${limit}${cursor}`);
      expect(status).toBe(200);
      seen.push(...body.items);
      if (!body.nextCursor) break;
      cursor = `&cursor=${encodeURIComponent(body.nextCursor)}`;
    }
    const order = seen.map((item) => [item.publishedAt ?? '', item.id].join(' '));
    const expected = [...seen]
      .sort((a, b) => (b.publishedAt ?? '').localeCompare(a.publishedAt ?? '') || a.id.localeCompare(b.id))
      .map((item) => [item.publishedAt ?? '', item.id].join(' '));
    expect(order).toEqual(expected);
    expect(new Set(seen.map((item) => item.id)).size).toBe(seen.length);
  }, 60_000);

  it('has no nextCursor on the last page', async () => {
    const { body } = await search('q=okapi&limit=100&page=3');
    expect(body.items.length).toBeGreaterThan(0);
    expect(body.nextCursor).toBeUndefined();
  });

  it('shows operators the walks holding a point in time, beside the ceiling, until the walk ends', async () => {
    // An API process of its own that reads the stores every 200 ms; every process counts the same walks in Redis.
    const { metrics } = await boot.system.startApi({
      METRICS_REFRESH_INTERVAL_MS: '200',
      SEARCH_PIT_MAX_OPEN: '50',
    });
    const exported = async (name: string) => {
      const response = await fetch(`${metrics}/metrics`, { signal: AbortSignal.timeout(5_000) });
      return sampleValue(await response.text(), name);
    };
    const held = (expected: number) =>
      waitFor(
        `search_points_in_time_held at ${expected}`,
        async () => ((await exported('search_points_in_time_held')) === expected ? true : undefined),
        { timeoutMs: 10_000 },
      );
    expect(await exported('search_points_in_time_max')).toBe(50);
    const before = await waitFor(
      'search_points_in_time_held read',
      () => exported('search_points_in_time_held'),
      {
        timeoutMs: 10_000,
      },
    );

    // A page by number holds nothing; the walk's first cursor page opens its point in time.
    const first = (await search('q=okapi&limit=100')).body;
    const second = (await search(`q=okapi&limit=100&cursor=${encodeURIComponent(first.nextCursor!)}`)).body;
    await held(before + 1);
    // Its last page closes it.
    const last = await search(`q=okapi&limit=100&cursor=${encodeURIComponent(second.nextCursor!)}`);
    expect(last.body.nextCursor).toBeUndefined();
    await held(before);
  }, 60_000);

  describe('refuses with a 400 problem naming the parameter', () => {
    let cursor: string;
    beforeAll(async () => {
      cursor = (await search('q=okapi&limit=5')).body.nextCursor!;
    }, 30_000);

    const refused = async (query: string, name: string) => {
      const response = await search<ProblemBody>(query);
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(response.body.errors?.map((error) => error.name)).toEqual([name]);
      return response.body;
    };

    it('a tampered cursor', async () => {
      const sealed = Buffer.from(cursor, 'base64url');
      for (const at of [0, sealed.length >> 1, sealed.length - 1]) {
        const altered = Buffer.from(sealed);
        altered[at]! ^= 1;
        const body = await refused(`q=okapi&cursor=${altered.toString('base64url')}`, 'cursor');
        expect(body.detail).toMatch(/altered/);
      }
      await refused(`q=okapi&cursor=${cursor.split('').reverse().join('')}`, 'cursor');
      await refused('q=okapi&cursor=garbage', 'cursor');
    });

    it("another search's cursor", async () => {
      const body = await refused(`q=narwhal&cursor=${encodeURIComponent(cursor)}`, 'cursor');
      expect(body.detail).toMatch(/another search/);
    });

    it('page together with a cursor', async () => {
      await refused(`q=okapi&page=2&cursor=${encodeURIComponent(cursor)}`, 'page');
    });

    it('a page beyond 10,000 results, pointing to the cursor', async () => {
      const body = await refused('q=okapi&page=101&limit=100', 'page');
      expect(body.detail).toMatch(/cursor/);
    });

    it('an unknown sort', async () => {
      await refused('q=okapi&sort=popular', 'sort');
    });
  });
});
