import fc from 'fast-check';
import {
  CATALOGUE_LANGUAGE_KINDS,
  catalogueLanguageQueries,
  ENGLISH_DERIVATION,
  englishDerivationQueries,
  type CatalogueLanguageItem,
  type LanguageVideo,
} from './catalogue-language-queries';
import { MIN_STEM } from './word-forms';

/** Title words of each language, with other forms of several of them. */
const POOLS: Record<string, string[]> = {
  spa: [
    'proyectos',
    'proyecto',
    'aprendizaje',
    'aprendizajes',
    'automático',
    'automática',
    'introducción',
    'introducir',
    'servidores',
    'servidor',
    'sistemas',
    'redes',
  ],
  rus: [
    'подход',
    'подхода',
    'экспериментальный',
    'экспериментального',
    'разработка',
    'разработки',
    'библиотеки',
    'библиотека',
    'данных',
  ],
  kor: ['파이썬으로', '데이터를', '분석하기', '장고로', '웹', '서비스'],
  jpn: ['機械学習', '入門', 'Pythonで', '技術', 'パッケージングを支える', 'の', '開発'],
  zho: ['机器学习', '入门', '用', '的', '数据', '分析', 'Python'],
  eng: ['foundation', 'founding', 'deployment', 'deploy', 'functional', 'function', 'systems', 'python'],
};
/** Words the descriptions add: the nouns alone, and a long English text that makes the others rare in it. */
const DESCRIBED: Record<string, string> = {
  kor: '파이썬 데이터 분석 장고 서비스',
  jpn: '機械学習 入門 技術',
  zho: '机器学习 入门 数据',
  eng: Array.from({ length: 60 }, (_, i) => `plain${String.fromCharCode(97 + (i % 26))}word`).join(' '),
};
const LANGUAGES = Object.keys(POOLS);
const WORD = /[\p{L}\p{N}]+/gu;
const words = (text: string): string[] => text.toLowerCase().match(WORD) ?? [];
const fold = (word: string) => word.normalize('NFD').replace(/\p{M}+/gu, '');

/** A catalogue: each video's language, the pool words of its title, the pool words of its description. */
const catalogue = fc
  .array(
    fc.record({
      language: fc.constantFrom(...LANGUAGES),
      title: fc.array(fc.nat(), { minLength: 2, maxLength: 4 }),
      description: fc.array(fc.nat(), { maxLength: 6 }),
    }),
    { minLength: 10, maxLength: 80 },
  )
  .map((drawn) =>
    drawn.map(({ language, title, description }, i): LanguageVideo => {
      const pool = POOLS[language]!;
      const pick = (n: number) => pool[n % pool.length]!;
      const cjk = language === 'jpn' || language === 'zho';
      return {
        id: `video-${i}`,
        title: `${title.map(pick).join(cjk ? '' : ' ')} ${i}`,
        description: `${description.map(pick).join(' ')} ${DESCRIBED[language] ?? ''}`,
        language,
      };
    }),
  );

/** The words of the texts of `language`'s videos. */
const textWords = (videos: LanguageVideo[], language: string) =>
  new Set(videos.filter((v) => v.language === language).flatMap((v) => words(`${v.title} ${v.description}`)));

function checkQuery(videos: LanguageVideo[], query: CatalogueLanguageItem): void {
  const video = videos.find((v) => v.id === query.target)!;
  const language = query.kind === ENGLISH_DERIVATION ? 'eng' : /\((\w+)\)$/.exec(query.kind)![1]!;
  expect(video.language).toBe(language);
  expect(videos.filter((v) => v.title.toLowerCase() === video.title.toLowerCase())).toHaveLength(1);
  const titleWords = words(video.title);
  const pieces = query.q.split(' ');
  expect(pieces).toHaveLength(2);
  if (language === 'jpn' || language === 'zho') {
    // Runs of the title, one of them written against other characters there.
    for (const piece of pieces) expect(video.title.toLowerCase()).toContain(piece);
    const spaced = video.title.toLowerCase().split(/\s+/);
    expect(pieces.some((piece) => !spaced.includes(piece))).toBe(true);
    return;
  }
  const used = textWords(videos, language);
  // One word of the title, and another form of another title word that the language's texts use.
  const replaced = pieces.some((form, i) => {
    const other = pieces[1 - i]!;
    if (!titleWords.includes(other) || !used.has(form)) return false;
    return titleWords.some((word) =>
      language === 'kor'
        ? word !== form && word.startsWith(form)
        : fold(word) !== fold(form) && word.slice(0, MIN_STEM) === form.slice(0, MIN_STEM),
    );
  });
  expect(replaced).toBe(true);
}

describe('catalogueLanguageQueries', () => {
  it('builds, for each language, queries in that language from its videos: another form of a title word, or a run without its particles', () => {
    let built = 0;
    fc.assert(
      fc.property(catalogue, fc.integer({ min: 1, max: 5 }), (videos, perKind) => {
        const queries = catalogueLanguageQueries(videos, perKind);
        expect(catalogueLanguageQueries(videos, perKind)).toEqual(queries);
        for (const kind of CATALOGUE_LANGUAGE_KINDS) {
          const ofKind = queries.filter((query) => query.kind === kind);
          expect(ofKind.length).toBeLessThanOrEqual(perKind);
          expect(new Set(ofKind.map((query) => query.target)).size).toBe(ofKind.length);
        }
        for (const query of queries) checkQuery(videos, query);
        built += queries.length;
      }),
    );
    expect(built).toBeGreaterThan(0);
  });

  it('finds a query for every language the catalogue gives the means to', () => {
    const videos: LanguageVideo[] = [
      ...Array.from({ length: 30 }, (_, i) => ({
        id: `eng-${i}`,
        title: `Deploy systems ${i}`,
        description: DESCRIBED.eng!,
        language: 'eng',
      })),
      { id: 's1', title: 'Proyectos de aprendizaje automático', description: 'proyecto', language: 'spa' },
      { id: 's2', title: 'Servidores y redes', description: 'servidor proyecto', language: 'spa' },
      { id: 'r1', title: 'Экспериментальный подход к разработке', description: 'подхода', language: 'rus' },
      { id: 'k1', title: '파이썬으로 데이터 분석하기', description: '파이썬 데이터', language: 'kor' },
      { id: 'j1', title: 'Pythonで機械学習入門', description: '機械学習 入門', language: 'jpn' },
      { id: 'j2', title: '機械と技術', description: '学習', language: 'jpn' },
      { id: 'z1', title: '用 Python 数据分析', description: '', language: 'zho' },
      { id: 'z2', title: '数据的力量', description: '分析', language: 'zho' },
    ];
    const queries = catalogueLanguageQueries(videos, 10);
    const kinds = new Set(queries.map((query) => query.kind));
    for (const kind of ['Spanish (spa)', 'Russian (rus)', 'Korean (kor)', 'Japanese (jpn)', 'Chinese (zho)'])
      expect(kinds).toContain(kind);
    for (const query of queries) checkQuery(videos, query);
    expect(queries.find((query) => query.target === 'k1')!.q).toMatch(/^파이썬 |\s파이썬$/u);
  });
});

describe('englishDerivationQueries', () => {
  it("replaces a title word of an English video by a related word the English texts use, which the 'other inflection' rules do not give", () => {
    fc.assert(
      fc.property(catalogue, (videos) => {
        const queries = englishDerivationQueries(videos, 5);
        expect(englishDerivationQueries(videos, 5)).toEqual(queries);
        const counts = new Map<string, number>();
        for (const video of videos.filter((v) => v.language === 'eng'))
          for (const word of words(`${video.title} ${video.description}`))
            counts.set(word, (counts.get(word) ?? 0) + 1);
        for (const query of queries) {
          checkQuery(videos, query);
          const title = words(videos.find((v) => v.id === query.target)!.title);
          const replacement = query.q.split(' ').find((word) => !title.includes(word));
          if (replacement) expect(counts.get(replacement)).toBeGreaterThanOrEqual(3);
        }
      }),
    );
  });
});
