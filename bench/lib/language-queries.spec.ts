import { inflections, LANGUAGE_KINDS, languageQueries, type SpokenVideo } from './language-queries';

/** A word of letters only, different for each number. */
const letters = (n: number) => n.toString(26).replace(/[0-9]/g, (digit) => 'qrstuvwxyz'[Number(digit)]!);

const videos: SpokenVideo[] = Array.from({ length: 300 }, (_, i) => ({
  id: `video-${i}`,
  title: `${i % 3 === 0 ? 'Programación' : 'Deploying'} ${letters(i)}containers with ${['Django', 'Flask', 'FastAPI'][i % 3]}`,
  description: 'We deploy the container and the deployments scale. Deploy, deployed, containers.',
  speakers: [`Speaker${i} Surname${i}`, 'Second Person'],
}));

describe('languageQueries', () => {
  it('takes the kinds in turn, the same for the same seed, each query built from the video it points at', () => {
    const queries = languageQueries(videos, 10);
    expect(languageQueries(videos, 10)).toEqual(queries);
    expect(languageQueries(videos, 10, 7)).not.toEqual(queries);
    expect(queries.slice(0, 4).map((query) => query.kind)).toEqual(LANGUAGE_KINDS);
    const byId = new Map(videos.map((video) => [video.id, video]));
    for (const query of queries) {
      const video = byId.get(query.target)!;
      const title = video.title.toLowerCase();
      if (query.kind === 'other inflection') {
        const words = query.q.split(' ');
        expect(words.filter((word) => !title.split(' ').includes(word))).toHaveLength(1);
      }
      if (query.kind === 'speaker and title word') {
        const [surname, word] = query.q.split(' ');
        expect(video.speakers[0]!.toLowerCase()).toMatch(new RegExp(`${surname}$`));
        expect(title).toContain(word);
      }
      if (query.kind === 'title start, cut mid-word') {
        expect(title.startsWith(query.q.toLowerCase())).toBe(true);
        expect(title.split(' ')).not.toContain(query.q.toLowerCase().split(' ').at(-1));
      }
      if (query.kind === 'title without accents') {
        expect(video.title).toContain('Programación');
        expect(query.q).toBe(video.title.replace('Programación', 'Programacion'));
      }
    }
  });
});

describe('inflections', () => {
  it('gives other forms of a word by suffix rules, never the word itself', () => {
    expect(inflections('deploy')).toEqual(expect.arrayContaining(['deploys', 'deploying', 'deployed']));
    expect(inflections('deploying')).toContain('deploy');
    expect(inflections('studies')).toContain('study');
    expect(inflections('container')).toContain('containers');
    expect(inflections('deploying')).not.toContain('deploying');
  });
});
