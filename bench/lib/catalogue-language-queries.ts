import { prng } from './random';
import { derivationsAmong, ENDINGS, formsAmong, FUNCTION_WORDS, type InflectingLanguage } from './word-forms';

/**
 * Queries in the video's own language (docs/contract.md §7): a title word in another of its forms
 * for the inflecting languages, a run of the title's characters without its particles for
 * Chinese, Japanese and Korean; and, for English, a derivationally related word.
 */
const LANGUAGE_NAMES = {
  spa: 'Spanish',
  rus: 'Russian',
  fra: 'French',
  por: 'Portuguese',
  ita: 'Italian',
  deu: 'German',
  pol: 'Polish',
  kor: 'Korean',
  jpn: 'Japanese',
  zho: 'Chinese',
} as const;

type CatalogueLanguage = keyof typeof LANGUAGE_NAMES;
const CATALOGUE_LANGUAGES = Object.keys(LANGUAGE_NAMES) as CatalogueLanguage[];

/** A language's kind, by its name and code: `Spanish (spa)`. */
export type CatalogueLanguageKind = `${(typeof LANGUAGE_NAMES)[CatalogueLanguage]} (${CatalogueLanguage})`;
const languageKind = (language: CatalogueLanguage): CatalogueLanguageKind =>
  `${LANGUAGE_NAMES[language]} (${language})`;
export const CATALOGUE_LANGUAGE_KINDS = CATALOGUE_LANGUAGES.map(languageKind);

export const ENGLISH_DERIVATION = 'English derivation';

export interface LanguageVideo {
  id: string;
  title: string;
  description: string;
  /** ISO 639-3, as stored (docs/contract.md §2). */
  language: string;
}

export interface CatalogueLanguageItem {
  kind: CatalogueLanguageKind | typeof ENGLISH_DERIVATION;
  q: string;
  target: string;
}

const WORD = /[\p{L}\p{N}]+/gu;
/** Words in lower case; composed first, as some texts write an accent as a mark of its own. */
const words = (text: string): string[] => text.normalize('NFC').toLowerCase().match(WORD) ?? [];
const fold = (word: string) => word.normalize('NFD').replace(/\p{M}+/gu, '');

/** The letters each inflecting language's words are written in. */
const SCRIPT: Record<InflectingLanguage, RegExp> = {
  spa: /^\p{Script=Latin}+$/u,
  fra: /^\p{Script=Latin}+$/u,
  por: /^\p{Script=Latin}+$/u,
  ita: /^\p{Script=Latin}+$/u,
  deu: /^\p{Script=Latin}+$/u,
  pol: /^\p{Script=Latin}+$/u,
  rus: /^\p{Script=Cyrillic}+$/u,
};

/**
 * How many times more often than in English a word is used in a language's texts to count as that
 * language's: titles and descriptions of a language's videos are often partly English (`python`,
 * `machine learning`), and those words' forms say nothing of the language.
 */
const NATIVE_RATIO = 10;

/**
 * How many of the English texts' most frequent words are never changed nor paired with: its
 * function words, and `python`, whose derivations (`pythonic`, `pythonista`) would crowd out the
 * rest. The other languages name their function words (word-forms.ts).
 */
const ENGLISH_MOST_FREQUENT = 30;

/** A word a title word may be changed from or to: five letters or more, as `with` never becomes `withes`. */
const LONG_ENOUGH = 5;

/** Korean particles and the endings of `하다` verbs, as a noun carries them (`파이썬으로`, `개발하기`), longest first. */
const KOREAN_ENDINGS =
  '에서는 으로는 에게서 이라는 에서 으로 에게 까지 부터 처럼 보다 이나 라는 하기 하는 하여 과 와 은 는 이 가 을 를 의 에 로 도 만'.split(
    ' ',
  );

/** The runs a Chinese or Japanese title's words sit in: Han or Katakana letters. */
const CJK_RUN: Record<'jpn' | 'zho', RegExp> = {
  jpn: /[\p{Script=Han}々]+|[\p{Script=Katakana}ー]+/gu,
  zho: /\p{Script=Han}+/gu,
};
/** Chinese function characters (`的`, `和`, `用`…): a run is cut at them, as a reader's eye does. */
const CHINESE_FUNCTION = /[的了和与與及在是用对對从從把被为為或之]/u;
const HAN = /^\p{Script=Han}+$/u;
const LETTERS = /^\p{L}+$/u;

/** Counts of each word in `texts`. */
function vocabularyOf(texts: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const text of texts) for (const word of words(text)) counts.set(word, (counts.get(word) ?? 0) + 1);
  return counts;
}

/** The videos in an order drawn with `next` (Fisher–Yates). */
function shuffled<T>(items: T[], next: () => number): T[] {
  const order = [...items];
  for (let i = order.length - 1; i > 0; i -= 1) {
    const j = Math.floor(next() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

/** The catalogue's texts, by language, and what the builders read of them. */
interface Catalogue {
  pick: <T>(items: readonly T[]) => T | undefined;
  byLanguage: Map<string, LanguageVideo[]>;
  vocabulary: (language: string) => Map<string, number>;
  /** Titles lowercased, each once per video. */
  titles: string[];
  /** How many videos' titles hold both words. */
  holdingBoth: (a: string, b: string) => number;
}

/**
 * The query that pairs `replacement`, in place of the title's word at `at`, with another word of
 * the title that `partner` accepts, in the title's order, where no other title holds both that
 * word and the one replaced: it names one video when the replacement is understood as the title's
 * word, and, the other word being in many titles, hardly any without.
 */
function pairedWith(
  catalogue: Catalogue,
  titleWords: string[],
  at: number,
  replacement: string,
  partner: (word: string) => boolean,
): string | undefined {
  const word = titleWords[at]!;
  const other = catalogue.pick(
    titleWords
      .map((_, i) => i)
      .filter(
        (i) =>
          titleWords[i] !== word &&
          partner(titleWords[i]!) &&
          catalogue.holdingBoth(word, titleWords[i]!) === 1,
      ),
  );
  if (other === undefined) return undefined;
  return other < at ? `${titleWords[other]} ${replacement}` : `${replacement} ${titleWords[other]}`;
}

/** A word to pair with: four letters or more, none of `fixed` (a language's function words). */
const partnerBeside = (fixed: Set<string>) => (word: string) =>
  word.length >= 4 && LETTERS.test(word) && !fixed.has(word);

/**
 * An inflecting language's builder: a title word (five letters or more, of the language's script,
 * used at least NATIVE_RATIO times as often in its texts as in English, not a function word)
 * replaced by another form of it (by ENDINGS, five letters or more) that the language's texts use,
 * different from it even without accents, paired with another title word (pairedWith: four letters
 * or more, not a function word); only titles most of whose words of four letters or more are the
 * language's.
 */
function inflectedIn(
  language: InflectingLanguage,
  catalogue: Catalogue,
): (video: LanguageVideo) => string | undefined {
  const own = catalogue.vocabulary(language);
  const english = catalogue.vocabulary('eng');
  // One more than the count, so that a language without texts divides by one.
  const total = (counts: Map<string, number>) => [...counts.values()].reduce((a, b) => a + b, 1);
  const ownTotal = total(own);
  const englishTotal = total(english);
  const native = (word: string) =>
    (own.get(word) ?? 0) / ownTotal >= (NATIVE_RATIO * ((english.get(word) ?? 0) + 0.5)) / englishTotal;
  const fixed = new Set(FUNCTION_WORDS[language].split(' '));
  const script = SCRIPT[language];
  const forms = formsAmong(
    [...own.keys()].filter((word) => script.test(word) && native(word)),
    ENDINGS[language],
  );
  const otherForms = (word: string) =>
    word.length >= LONG_ENOUGH && !fixed.has(word)
      ? (forms.get(word) ?? []).filter((form) => form.length >= LONG_ENOUGH && fold(form) !== fold(word))
      : [];
  const partner = partnerBeside(fixed);
  return (video) => {
    const titleWords = words(video.title);
    const long = titleWords.filter((word) => word.length >= 4 && !/^\p{N}+$/u.test(word));
    if (2 * long.filter((word) => script.test(word) && native(word)).length <= long.length) return undefined;
    const at = catalogue.pick(
      titleWords.map((_, i) => i).filter((i) => otherForms(titleWords[i]!).length > 0),
    );
    if (at === undefined) return undefined;
    return pairedWith(catalogue, titleWords, at, catalogue.pick(otherForms(titleWords[at]!))!, partner);
  };
}

/**
 * Korean: a title word that is a noun with a particle (`파이썬으로`), the noun alone (two
 * syllables or more, a word the Korean texts use on its own), paired with another title word of
 * two letters or more (pairedWith).
 */
function koreanNoun(catalogue: Catalogue): (video: LanguageVideo) => string | undefined {
  const own = catalogue.vocabulary('kor');
  const noun = (word: string) => {
    if (!/^\p{Script=Hangul}+$/u.test(word)) return undefined;
    const ending = KOREAN_ENDINGS.find((e) => word.endsWith(e) && word.length - e.length >= 2);
    const bare = ending && word.slice(0, word.length - ending.length);
    return bare && own.has(bare) ? bare : undefined;
  };
  const partner = (word: string) => word.length >= 2 && LETTERS.test(word);
  return (video) => {
    const titleWords = words(video.title);
    const at = catalogue.pick(titleWords.map((_, i) => i).filter((i) => noun(titleWords[i]!)));
    return at === undefined
      ? undefined
      : pairedWith(catalogue, titleWords, at, noun(titleWords[at]!)!, partner);
  };
}

/**
 * Chinese or Japanese: a run of 2–4 of the title's Han or Katakana characters, or of a Han run's
 * two-character words (at even offsets: most Chinese and Japanese words of Han characters are two
 * of them), that the title does not hold as a word between spaces (it is written against other
 * characters, a particle or another word) and that another video of the language also uses. With
 * it, another piece of the title (another such run, or a Latin word of three letters or more), in
 * the title's order, where no other title holds both.
 */
function cjkRun(language: 'jpn' | 'zho', catalogue: Catalogue): (video: LanguageVideo) => string | undefined {
  const texts = (catalogue.byLanguage.get(language) ?? []).map((v) => `${v.title} ${v.description}`);
  const uses = new Map<string, number>();
  const usedElsewhere = (run: string) => {
    if (!uses.has(run)) uses.set(run, texts.filter((text) => text.includes(run)).length);
    return uses.get(run)! >= 2;
  };
  const runs = (title: string): { piece: string; at: number }[] => {
    const spaced = new Set(title.split(/\s+/));
    const found: { piece: string; at: number }[] = [];
    for (const match of title.matchAll(CJK_RUN[language])) {
      const segments = language === 'zho' ? match[0].split(CHINESE_FUNCTION) : [match[0]];
      let offset = match.index;
      for (const segment of segments) {
        const pieces = [
          ...(segment.length <= 4 ? [{ piece: segment, at: offset }] : []),
          ...(HAN.test(segment) && segment.length > 2
            ? Array.from({ length: Math.floor(segment.length / 2) }, (_, k) => ({
                piece: segment.slice(2 * k, 2 * k + 2),
                at: offset + 2 * k,
              }))
            : []),
        ];
        found.push(
          ...pieces.filter(({ piece }) => piece.length >= 2 && !spaced.has(piece) && usedElsewhere(piece)),
        );
        offset += segment.length + 1;
      }
    }
    return found;
  };
  return (video) => {
    const title = video.title;
    const own = runs(title);
    const run = catalogue.pick(own);
    if (!run) return undefined;
    const lower = title.toLowerCase();
    const others = [
      ...own.filter(
        ({ piece, at }) =>
          piece !== run.piece && (at + piece.length <= run.at || at >= run.at + run.piece.length),
      ),
      ...words(title)
        .filter((word) => word.length >= 3 && /^\p{Script=Latin}+$/u.test(word))
        .map((word) => ({ piece: word, at: lower.indexOf(word) })),
    ];
    const other = catalogue.pick(others);
    if (!other) return undefined;
    const pieces = [run, other].sort((a, b) => a.at - b.at).map(({ piece }) => piece.toLowerCase());
    const holders = catalogue.titles.filter((t) => pieces.every((piece) => t.includes(piece))).length;
    return holders === 1 ? pieces.join(' ') : undefined;
  };
}

function catalogueOf(videos: LanguageVideo[], next: () => number): Catalogue {
  const byLanguage = new Map<string, LanguageVideo[]>();
  for (const video of videos)
    byLanguage.set(video.language, [...(byLanguage.get(video.language) ?? []), video]);
  const vocabularies = new Map<string, Map<string, number>>();
  const titled = new Map<string, Set<number>>();
  videos.forEach((video, i) => {
    for (const word of words(video.title)) titled.set(word, (titled.get(word) ?? new Set()).add(i));
  });
  return {
    pick: (items) => items[Math.floor(next() * items.length)],
    byLanguage,
    vocabulary: (language) => {
      if (!vocabularies.has(language))
        vocabularies.set(
          language,
          vocabularyOf((byLanguage.get(language) ?? []).map((v) => `${v.title} ${v.description}`)),
        );
      return vocabularies.get(language)!;
    },
    titles: videos.map((video) => video.title.toLowerCase()),
    holdingBoth: (a, b) => {
      const [fewer, more] = [titled.get(a) ?? new Set<number>(), titled.get(b) ?? new Set<number>()].sort(
        (x, y) => x.size - y.size,
      );
      return [...fewer!].filter((i) => more!.has(i)).length;
    },
  };
}

/** Videos whose title is unique in the catalogue: a shared title has no single right answer. */
function uniquelyTitled(videos: LanguageVideo[]): Set<LanguageVideo> {
  const counts = new Map<string, number>();
  for (const video of videos)
    counts.set(video.title.toLowerCase(), (counts.get(video.title.toLowerCase()) ?? 0) + 1);
  return new Set(videos.filter((video) => counts.get(video.title.toLowerCase()) === 1));
}

/** Up to `perKind` queries, one per video, from `candidates` in an order drawn with `next`. */
function oneEach(
  kind: CatalogueLanguageItem['kind'],
  candidates: LanguageVideo[],
  build: (video: LanguageVideo) => string | undefined,
  perKind: number,
  next: () => number,
): CatalogueLanguageItem[] {
  const queries: CatalogueLanguageItem[] = [];
  for (const video of shuffled(candidates, next)) {
    if (queries.length >= perKind) break;
    const q = build(video);
    if (q) queries.push({ kind, q, target: video.id });
  }
  return queries;
}

/**
 * Up to `perKind` queries of each catalogue language (CATALOGUE_LANGUAGES, by the videos' stored
 * `language`), one per video, built deterministically (fixed seed) from its videos whose title is
 * unique: as many as the sample allows.
 */
export function catalogueLanguageQueries(
  videos: LanguageVideo[],
  perKind: number,
  seed = 639,
): CatalogueLanguageItem[] {
  const next = prng(seed);
  const catalogue = catalogueOf(videos, next);
  const unique = uniquelyTitled(videos);
  return CATALOGUE_LANGUAGES.flatMap((language) => {
    const build =
      language === 'kor'
        ? koreanNoun(catalogue)
        : language === 'jpn' || language === 'zho'
          ? cjkRun(language, catalogue)
          : inflectedIn(language, catalogue);
    const candidates = (catalogue.byLanguage.get(language) ?? []).filter(
      (video) =>
        unique.has(video) && (words(video.title).length >= 3 || language === 'jpn' || language === 'zho'),
    );
    return oneEach(languageKind(language), candidates, build, perKind, next);
  });
}

/**
 * Up to `perKind` English derivations, one per video whose stored language is English and whose
 * title is unique, of three words or more: a title word (five letters or more, not among the most
 * frequent) replaced by a derivationally related word of five letters or more that the English
 * texts use three times or more (`founding` for "foundation": word-forms.ts), paired with another
 * title word as the other languages' are.
 */
export function englishDerivationQueries(
  videos: LanguageVideo[],
  perKind: number,
  seed = 826,
): CatalogueLanguageItem[] {
  const english = videos.filter((video) => video.language === 'eng');
  const next = prng(seed);
  const catalogue = catalogueOf(videos, next);
  const vocabulary = catalogue.vocabulary('eng');
  const fixed = new Set(
    [...vocabulary]
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, ENGLISH_MOST_FREQUENT)
      .map(([word]) => word),
  );
  const partner = partnerBeside(fixed);
  const derived = derivationsAmong(
    [...vocabulary]
      .filter(([word, count]) => count >= 3 && word.length >= LONG_ENOUGH && /^[a-z]+$/.test(word))
      .map(([word]) => word),
  );
  const derivation = (video: LanguageVideo) => {
    const titleWords = words(video.title);
    const at = catalogue.pick(
      titleWords.map((_, i) => i).filter((i) => !fixed.has(titleWords[i]!) && derived.has(titleWords[i]!)),
    );
    return at === undefined
      ? undefined
      : pairedWith(catalogue, titleWords, at, catalogue.pick(derived.get(titleWords[at]!)!)!, partner);
  };
  const unique = uniquelyTitled(videos);
  const candidates = english.filter((video) => unique.has(video) && words(video.title).length >= 3);
  return oneEach(ENGLISH_DERIVATION, candidates, derivation, perKind, next);
}
