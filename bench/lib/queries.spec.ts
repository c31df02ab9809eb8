import { asTyped, KINDS, knownItemMix, knownItemQueries, type KnownVideo } from './queries';

const videos: KnownVideo[] = Array.from({ length: 200 }, (_, i) => ({
  id: `video-${i}`,
  title: `Talk number ${i} about asynchronous programming`,
  description: `${Array.from({ length: 25 }, (__, w) => `word${(i * 7 + w) % 60}`).join(' ')} unique${i}`,
}));

describe('knownItemQueries', () => {
  it('asks the same questions for the same videos and seed', () => {
    expect(knownItemQueries(videos, 20)).toEqual(knownItemQueries(videos, 20));
    expect(knownItemQueries(videos, 20, 1)).not.toEqual(knownItemQueries(videos, 20, 2));
  });

  it('takes the kinds in turn, each query pointing at the video it came from', () => {
    const queries = knownItemQueries(videos, 10);
    expect(queries.slice(0, 4).map((query) => query.kind)).toEqual([
      'exact title',
      'partial title',
      'title with a typo',
      'description words',
    ]);
    const byId = new Map(videos.map((video) => [video.id, video]));
    for (const query of queries) {
      const video = byId.get(query.target)!;
      if (query.kind === 'exact title') expect(query.q).toBe(video.title);
      if (query.kind === 'partial title') expect(video.title).toContain(query.q);
      if (query.kind === 'title with a typo') {
        expect(query.q).not.toBe(video.title);
        expect([...query.q].sort()).toEqual([...video.title].sort());
      }
      if (query.kind === 'description words')
        for (const word of query.q.split(' ')) expect(video.description).toContain(word);
    }
  });

  it('never asks for a video whose title others share', () => {
    const shared = videos.map((video, i) =>
      i < 150 ? { ...video, title: 'Lightning talks about things' } : video,
    );
    const targets = knownItemQueries(shared, 20).map((query) => Number(query.target.split('-')[1]));
    expect(targets.every((i) => i >= 150)).toBe(true);
  });
});

describe('knownItemMix', () => {
  it('asks exactly as many of each kind, the kinds in turn', () => {
    const mix = knownItemMix(videos, 25);
    expect(mix).toHaveLength(100);
    const items = knownItemQueries(videos, 40);
    const kindOf = new Map(items.map((item) => [item.q, item.kind]));
    expect(mix.slice(0, 8).map((q) => kindOf.get(q))).toEqual([...KINDS, ...KINDS]);
    for (const kind of KINDS) expect(mix.filter((q) => kindOf.get(q) === kind)).toHaveLength(25);
  });

  it('is the same for the same videos, and within the API’s limit on q', () => {
    expect(knownItemMix(videos, 25)).toEqual(knownItemMix(videos, 25));
    const some = videos.map((video, i) =>
      i % 10 === 0 ? { ...video, title: `${video.title} ${'very '.repeat(60)}long` } : video,
    );
    for (const q of knownItemMix(some, 25)) expect(q.length).toBeLessThanOrEqual(256);
  });

  it('refuses videos too few for the mix rather than ask fewer questions', () => {
    // No word of five letters or more: no title can be misspelt the way the mix misspells.
    const short = videos.map((video, i) => ({ ...video, title: `Talk no ${i} on sets` }));
    expect(() => knownItemMix(short, 25)).toThrow(/too few known items/);
  });
});

describe('asTyped', () => {
  it('keeps the words before the middle one and cuts that one after three letters', () => {
    expect(asTyped('pandas dataframe tricks')).toBe('pandas dat');
    expect(asTyped('asyncio')).toBe('asy');
    expect(asTyped('a b c d')).toBe('a b c');
  });

  it('stays within the route’s 64 characters', () => {
    expect(asTyped('word '.repeat(40)).length).toBeLessThanOrEqual(64);
  });
});
