import { SCRAPE_REUSE_MS } from '@app/shared/metrics/metrics.service';
import { VideoState } from '@app/shared/video/video-state';
import { ENTRY, freePort, runProcess, sleep, startProcess, waitForStatus } from '../support/processes';
import { seedVideos } from '../support/seed';
import { call, token } from '../support/system';
import { bootSystem } from '../support/boot';

const reader = token('reader');
const admin = token('boss', ['admin']);

interface SearchBody {
  items: {
    id: string;
    title: string;
    description: string;
    authorId: string;
    speakers: string[];
    event: string | null;
    publishedAt: string;
    tags: string[];
    language: string;
    score: number;
  }[];
  page: number;
  limit: number;
  total: number;
  totalPages: number;
}

interface Problem {
  status: number;
  detail: string;
  errors: { name: string; reason: string }[];
}

describe('GET /api/videos/search (contract §7)', () => {
  const boot = bootSystem({ system: { worker: false } });

  const search = <T = SearchBody>(query: string, bearer = reader) =>
    call<T>('GET', `${boot.system.api}/api/videos/search?${query}`, bearer);
  const ids = async (query: string) => (await search(query)).body.items.map((item) => item.id);

  it('answers with exactly the documented shape', async () => {
    const [id] = await seedVideos(boot.context, 1, {
      title: () => 'Shape of the quokka answer',
      authorId: 'shape-author',
      speakers: () => ['Grace Hopper', 'Zoë Ødegård'],
      event: () => 'PyCon Ísland 2024',
      language: () => 'isl',
    });
    const response = await search('q=quokka');
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual([
      'items',
      'limit',
      'page',
      'total',
      'totalPages',
      'totalRelation',
    ]);
    expect(response.body).toMatchObject({ page: 1, limit: 20, total: 1, totalRelation: 'eq', totalPages: 1 });
    const [item] = response.body.items;
    expect(Object.keys(item!).sort()).toEqual([
      'authorId',
      'description',
      'event',
      'id',
      'language',
      'publishedAt',
      'score',
      'speakers',
      'tags',
      'title',
    ]);
    expect(item).toMatchObject({
      id,
      title: 'Shape of the quokka answer',
      authorId: 'shape-author',
      speakers: ['Grace Hopper', 'Zoë Ødegård'],
      event: 'PyCon Ísland 2024',
      tags: ['seed'],
      language: 'isl',
    });
    expect(typeof item!.score).toBe('number');
  });

  describe('filters', () => {
    let byDate: Record<string, string>;

    beforeAll(async () => {
      const instants = [
        '2024-04-30T23:59:59.999Z',
        '2024-05-01T00:00:00.000Z',
        '2024-05-01T23:59:59.999Z',
        '2024-05-02T00:00:00.000Z',
      ];
      const seeded = await seedVideos(boot.context, instants.length, {
        title: () => 'Calendar echidna session',
        publishedAt: (i) => new Date(instants[i]!),
        authorId: 'calendar-author',
      });
      byDate = Object.fromEntries(instants.map((instant, i) => [instant, seeded[i]!]));
    });

    it('treats date-only bounds as whole days, inclusive at both ends', async () => {
      const found = await ids('q=echidna&dateFrom=2024-05-01&dateTo=2024-05-01');
      expect(found.sort()).toEqual(
        [byDate['2024-05-01T00:00:00.000Z'], byDate['2024-05-01T23:59:59.999Z']].sort(),
      );
    });

    it('takes date-times with offsets, inclusive', async () => {
      const found = await ids('q=echidna&dateFrom=2024-05-02T02:00:00%2B02:00');
      expect(found.sort()).toEqual([byDate['2024-05-02T00:00:00.000Z']]);
    });

    it('rounds a bound finer than a millisecond towards the inside of the range', async () => {
      const found = await ids(
        'q=echidna&dateFrom=2024-05-01T00:00:00.0000001Z&dateTo=2024-05-01T23:59:59.9999999Z',
      );
      expect(found).toEqual([byDate['2024-05-01T23:59:59.999Z']]);
    });

    it('takes any year 0000–9999, and bounds an offset carries past them', async () => {
      const all = Object.values(byDate).sort();
      expect((await ids('q=echidna&dateFrom=0001-01-01&dateTo=0099-12-31')).sort()).toEqual([]);
      expect((await ids('q=echidna&dateFrom=0001-01-01')).sort()).toEqual(all);
      // Year 10000 in UTC: every video is before it, and none after it.
      expect((await ids('q=echidna&dateTo=9999-12-31T23:59:59-00:01')).sort()).toEqual(all);
      const after = await search('q=echidna&dateFrom=9999-12-31T23:59:59-00:01');
      expect(after.status).toBe(200);
      expect(after.body).toMatchObject({ items: [], total: 0 });
    });

    it('filters by exact author', async () => {
      expect(await ids('q=echidna&authorId=calendar-author')).toHaveLength(4);
      expect(await ids('q=echidna&authorId=calendar')).toEqual([]);
    });
  });

  describe('paging', () => {
    let seeded: string[];

    beforeAll(async () => {
      seeded = await seedVideos(boot.context, 45, {
        title: () => 'Paging narwhal seminar',
        publishedAt: () => new Date('2023-03-03T00:00:00Z'),
      });
    });

    it('walks every page and sees every id exactly once (ties break by date, then id)', async () => {
      const seen: string[] = [];
      for (let page = 1; page <= 5; page += 1) {
        const { body } = await search(`q=narwhal&limit=10&page=${page}`);
        expect(body).toMatchObject({ page, limit: 10, total: 45, totalPages: 5 });
        seen.push(...body.items.map((item) => item.id));
      }
      expect(seen).toHaveLength(45);
      expect(new Set(seen).size).toBe(45);
      expect([...seen].sort()).toEqual([...seeded].sort());
      // Equal scores and dates: id order decides, so the walk is stable.
      expect(seen).toEqual([...seen].sort());
    });

    it('answers a page past the end with no items and the true total', async () => {
      const { status, body } = await search('q=narwhal&limit=10&page=9');
      expect(status).toBe(200);
      expect(body).toMatchObject({ items: [], page: 9, total: 45, totalPages: 5 });
    });
  });

  describe('ranking', () => {
    it('ranks all words above some, and a title match above a description-only match', async () => {
      const [both] = await seedVideos(boot.context, 1, { title: () => 'Wallaby marsupial migration' });
      const [one] = await seedVideos(boot.context, 1, { title: () => 'Wallaby feeding habits' });
      const [inDescription] = await seedVideos(boot.context, 1, { title: () => 'Unrelated bandicoot talk' });
      await boot.context.dataSource.query(
        'UPDATE videos SET description = ?, version = version + 1 WHERE id = ?',
        ['all about the wallaby marsupial migration', inDescription],
      );
      await boot.context.indexWriter.indexVideos(await boot.context.videos.findByIds([inDescription!]));
      await boot.context.indexAdmin.refresh();

      const found = await ids('q=wallaby%20marsupial%20migration');
      expect(found[0]).toBe(both);
      expect(found.indexOf(inDescription!)).toBeGreaterThan(0);
      expect(found).toContain(one);
    });

    it('matches any inflection of a word, ranking the exact form first', async () => {
      const [exact] = await seedVideos(boot.context, 1, { title: () => 'Deploy quoll tracker' });
      const [inflected] = await seedVideos(boot.context, 1, { title: () => 'Deploying quoll trackers' });
      expect(await ids('q=deploy%20quoll%20tracker')).toEqual([exact, inflected]);
      expect(await ids('q=deploying%20quoll%20trackers')).toEqual([inflected, exact]);
      expect(await ids('q=deployments')).toEqual(expect.arrayContaining([exact, inflected]));
    });

    it('matches words whatever their accents, either way', async () => {
      const [accented] = await seedVideos(boot.context, 1, { title: () => 'Introducción a la programación' });
      const [plain] = await seedVideos(boot.context, 1, { title: () => 'Curso de ingles para cientificos' });
      expect(await ids('q=introduccion%20programacion')).toEqual([accented]);
      expect(await ids(`q=${encodeURIComponent('INGLÉS científicos')}`)).toEqual([plain]);
    });

    it("finds a talk by a speaker's surname and a title word, and by its event", async () => {
      const [talk] = await seedVideos(boot.context, 1, {
        title: () => 'Analytical engines in practice',
        speakers: () => ['Ada Lovelace', 'Charles Babbage'],
        event: () => 'Wombatcon Øresund 2024',
      });
      const [other] = await seedVideos(boot.context, 1, { title: () => 'Analytical engines for beginners' });
      expect((await ids('q=lovelace%20engines'))[0]).toBe(talk);
      expect(await ids('q=babbage')).toEqual([talk]);
      expect(await ids('q=wombatcon%20oresund')).toEqual([talk]);
      const [item] = (await search('q=lovelace')).body.items;
      expect(item).toMatchObject({
        id: talk,
        speakers: ['Ada Lovelace', 'Charles Babbage'],
        event: 'Wombatcon Øresund 2024',
      });
      expect(await ids('q=analytical%20engines')).toContain(other);
    });

    it('matches the last word of q as a prefix, as typed into a search box', async () => {
      const [frames] = await seedVideos(boot.context, 1, { title: () => 'Pandas DataFrame walkthrough' });
      const [bears] = await seedVideos(boot.context, 1, { title: () => 'Pandas data in the wild' });
      // `datafr` starts a title word: being typed, not a typo of `data`.
      expect((await ids('q=pandas%20datafr'))[0]).toBe(frames);
      // Only the last word: the words before it match whole.
      expect(await ids('q=pan%20dataframe')).not.toContain(bears);
      expect(await ids('q=dataframe%20walkthr')).toEqual([frames]);
      // A prefix longer than the indexed ones (2–10 letters) expands to the words that start with it.
      expect(await ids('q=dataframe%20walkthroug')).toEqual([frames]);
    });

    it('finds a title despite a small typo', async () => {
      const [id] = await seedVideos(boot.context, 1, { title: () => 'Concurrency with asyncio' });
      expect(await ids('q=asyncoi')).toContain(id);
    });
  });

  it.each([
    '"unbalanced quote',
    'title:foo',
    '(bracket',
    'wild*card',
    'back\\slash',
    'this AND that',
    '-negated',
    'emoji 🎬🐍',
    'x'.repeat(256),
    '{"json": true}',
    '/regex.*/',
    'a OR b NOT c',
    '~fuzzy^2',
  ])('treats q=%p as plain text (200)', async (q) => {
    const response = await search(`q=${encodeURIComponent(q)}`);
    expect(response.status).toBe(200);
  });

  describe('validation', () => {
    it.each([
      ['', 'q'],
      ['q=%20%20', 'q'],
      [`q=${'y'.repeat(257)}`, 'q'],
      ['q=x&q=y', 'q'],
      ['q=x&authorId=', 'authorId'],
      ['q=x&dateFrom=2024-02-30', 'dateFrom'],
      ['q=x&dateTo=05/01/2024', 'dateTo'],
      ['q=x&dateFrom=2024-05-02&dateTo=2024-05-01', 'dateFrom'],
      ['q=x&page=0', 'page'],
      ['q=x&page=1&page=2', 'page'],
      ['q=x&limit=101', 'limit'],
      ['q=x&limit=ten', 'limit'],
    ])('%p is a 400 naming %s', async (query, name) => {
      const response = await search<Problem>(query);
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(response.body.errors.map((e) => e.name)).toEqual([name]);
    });

    it('explains the 10,000-result window', async () => {
      const response = await search<Problem>('q=x&page=101&limit=100');
      expect(response.status).toBe(400);
      expect(response.body.errors[0]!.reason).toMatch(/10000/);
      expect(response.body.detail).toMatch(/page × limit must not exceed 10000/);
    });

    it('refuses unknown parameters, naming each (§4)', async () => {
      const answer = await search<{ errors: { name: string }[] }>('q=x&order=new&foo=bar');
      expect(answer.status).toBe(400);
      expect(answer.body.errors.map((error) => error.name).sort()).toEqual(['foo', 'order']);
    });

    it('needs a token', async () => {
      expect((await call('GET', `${boot.system.api}/api/videos/search?q=x`)).status).toBe(401);
    });
  });

  describe('MySQL is the truth', () => {
    it('never returns a deleted video, even when its index document says it is active', async () => {
      const [id] = await seedVideos(boot.context, 1, { title: () => 'Stale dingo documentary' });
      expect((await call('DELETE', `${boot.system.api}/api/videos/${id}`, admin)).status).toBe(200);
      // The index lags: a stale "active" document with a newer version than the row's.
      const [row] = await boot.context.videos.findByIds([id!]);
      await boot.context.indexWriter.indexVideos([{ ...row!, state: VideoState.Active, version: 1_000 }]);
      await boot.context.indexAdmin.refresh();
      const [visible] = await seedVideos(boot.context, 1, { title: () => 'Live dingo documentary' });
      const response = await search('q=dingo');
      expect(response.body.items.map((item) => item.id)).toEqual([visible]);
      // The dropped hit is not counted either.
      expect(response.body).toMatchObject({ total: 1, totalPages: 1 });
    });

    it('shows a video as its row is now, after a search already rendered it, and hides it once deleted', async () => {
      const [id] = await seedVideos(boot.context, 1, { title: () => 'Numbat field notes' });
      const lookups = async (result: 'hit' | 'miss') => {
        // A scrape within SCRAPE_REUSE_MS of another answers the same text.
        await sleep(SCRAPE_REUSE_MS);
        const text = await (await fetch(`${boot.system.apiMetrics}/metrics`)).text();
        const line = new RegExp(`^search_item_cache_lookups_total\\{result="${result}"\\} (\\d+)$`, 'm');
        return Number(line.exec(text)?.[1] ?? 0);
      };
      const titles = async () => (await search('q=numbat')).body.items.map((item) => item.title);

      const misses = await lookups('miss');
      expect(await titles()).toEqual(['Numbat field notes']);
      const hits = await lookups('hit');
      expect(await titles()).toEqual(['Numbat field notes']);
      expect(await lookups('hit')).toBe(hits + 1);
      expect(await lookups('miss')).toBe(misses + 1);

      // A new import of the video: the row's version moves, the index document is left as it was.
      await boot.context.videos.upsertContent([
        {
          id: id!,
          authorId: 'author-1',
          title: 'Numbat field notes, second edition',
          description: 'Revised.',
          tags: ['seed', 'revised'],
          speakers: [],
          event: null,
          publishedAt: new Date(Date.UTC(2024, 0, 1)),
          language: 'fra',
        },
      ]);
      const [revised] = (await search('q=numbat')).body.items;
      expect(revised).toMatchObject({
        id,
        title: 'Numbat field notes, second edition',
        description: 'Revised.',
        tags: ['seed', 'revised'],
        language: 'fra',
      });

      expect((await call('DELETE', `${boot.system.api}/api/videos/${id}`, admin)).status).toBe(200);
      expect(await titles()).toEqual([]);
    });

    it('keeps answering through a full reindex, with the same total after', async () => {
      await seedVideos(boot.context, 30, { title: () => 'Reindex lyrebird lecture' });
      const before = (await search('q=lyrebird')).body.total;
      let searching = true;
      const statuses: number[] = [];
      const totals = new Set<number>();
      const load = (async () => {
        while (searching) {
          const response = await search('q=lyrebird');
          statuses.push(response.status);
          totals.add(response.body.total);
        }
      })();
      const reindex = await runProcess(ENTRY.cli, ['reindex', '--no-progress', '--batch-size', '10']);
      searching = false;
      await load;
      expect(reindex.code).toBe(0);
      expect(statuses.length).toBeGreaterThan(5);
      expect(statuses.every((status) => status === 200)).toBe(true);
      expect([...totals]).toEqual([before]);
      expect((await search('q=lyrebird')).body.total).toBe(before);
    }, 60_000);
  });
});

describe('search while the index is unreachable', () => {
  it('answers 503 problem+json with Retry-After, and deletes still answer 200', async () => {
    const port = await freePort();
    // Nothing listens on port 9 (discard): Elasticsearch is "down" for this API only.
    const api = startProcess(ENTRY.api, { PORT: String(port), ELASTICSEARCH_URL: 'http://127.0.0.1:9' });
    try {
      await waitForStatus(`http://127.0.0.1:${port}/health/live`, 200);
      const response = await call<Problem>('GET', `http://127.0.0.1:${port}/api/videos/search?q=x`, reader);
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(response.body.status).toBe(503);
      // Still in service: the search's own 503 tells the caller; readiness reports the engine down.
      const ready = await fetch(`http://127.0.0.1:${port}/health/ready`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({
        status: 'degraded',
        details: { elasticsearch: { status: 'down' } },
      });
    } finally {
      await api.stop();
    }
  }, 60_000);
});
