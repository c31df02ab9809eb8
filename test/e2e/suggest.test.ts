import { VideoState } from '@app/shared/video/video-state';
import { bootSystem } from '../support/boot';
import { seedVideos } from '../support/seed';
import { call, token } from '../support/system';

const reader = token('reader');
const admin = token('boss', ['admin']);

interface Suggestions {
  items: { id: string; title: string }[];
}

interface Problem {
  status: number;
  errors: { name: string; reason: string }[];
}

const TITLES = [
  'pandas DataFrame tricks',
  'Pandas dataframes at scale',
  'Pandas internals',
  'Data science with pandas',
  'Numpy for beginners',
  'Introducción a Python en Español',
];

describe('GET /api/videos/suggest (contract §7.2)', () => {
  const byTitle = new Map<string, string>();
  const boot = bootSystem({
    seed: async (context) => {
      const ids = await seedVideos(context, TITLES.length, { title: (i) => TITLES[i]! });
      TITLES.forEach((title, i) => byTitle.set(title, ids[i]!));
    },
    system: { worker: false },
  });

  const suggest = <T = Suggestions>(query: string) =>
    call<T>('GET', `${boot.system.api}/api/videos/suggest?${query}`, reader);
  const titles = async (query: string) => (await suggest(query)).body.items.map((item) => item.title);

  it('completes the last word and needs every other word, titles going on as typed first', async () => {
    const { status, body } = await suggest('q=pandas%20datafr');
    expect(status).toBe(200);
    expect(body.items.map((item) => item.title).sort()).toEqual(
      ['Pandas dataframes at scale', 'pandas DataFrame tricks'].sort(),
    );
    for (const item of body.items) expect(item.id).toBe(byTitle.get(item.title));

    const pand = await titles('q=pand');
    expect(pand.sort()).toEqual(TITLES.filter((title) => /pandas/i.test(title)).sort());
    // A title that goes on as typed ranks above one that only holds the word.
    expect((await titles('q=pand')).at(-1)).toBe('Data science with pandas');
    expect(await titles('q=numpy%20for%20beg')).toEqual(['Numpy for beginners']);
    expect(await titles('q=zzz')).toEqual([]);
    // Accents and case aside, both ways.
    expect(await titles('q=introduccion%20a%20pyth')).toEqual(['Introducción a Python en Español']);
    expect(await titles('q=PYTHON%20EN%20ESPA%C3%91')).toEqual(['Introducción a Python en Español']);
  });

  it('answers at most limit titles (8 by default), and user text is never syntax', async () => {
    expect(await titles('q=pandas&limit=1')).toHaveLength(1);
    expect((await suggest('q=%22pandas%20(*%3A')).status).toBe(200);
  });

  it('never suggests a deleted video, even when its index document says it is active', async () => {
    const id = byTitle.get('Pandas internals')!;
    expect((await call('DELETE', `${boot.system.api}/api/videos/${id}`, admin)).status).toBe(200);
    expect(await titles('q=pandas%20int')).toEqual([]);
    // The index lags: a stale "active" document.
    const [row] = await boot.context.videos.findByIds([id]);
    await boot.context.indexWriter.indexVideos([{ ...row!, state: VideoState.Active, version: 1_000 }]);
    await boot.context.indexAdmin.refresh();
    expect(await titles('q=pandas%20int')).toEqual([]);
  });

  it('refuses a missing or too long q and a limit outside 1–20, naming each', async () => {
    for (const [query, names] of [
      ['limit=5', ['q']],
      [`q=${'a'.repeat(65)}`, ['q']],
      ['q=%20%20', ['q']],
      ['q=pandas&limit=21', ['limit']],
      ['q=pandas&limit=0', ['limit']],
      ['q=a&q=b', ['q']],
    ] as const) {
      const { status, headers, body } = await suggest<Problem>(query);
      expect([query, status, headers.get('content-type')]).toEqual([
        query,
        400,
        expect.stringContaining('application/problem+json'),
      ]);
      expect(body.errors.map((error) => error.name)).toEqual(names);
    }
    expect((await call('GET', `${boot.system.api}/api/videos/suggest?q=pandas`)).status).toBe(401);
  });
});
