import { prng } from './random';

/**
 * Queries that differ from a video's own words the way people's queries do (issue 20's table): a
 * word in another inflection, a speaker's surname, a last word still being typed, no accents.
 */
export type LanguageKind =
  'other inflection' | 'speaker and title word' | 'title start, cut mid-word' | 'title without accents';

export const LANGUAGE_KINDS: LanguageKind[] = [
  'other inflection',
  'speaker and title word',
  'title start, cut mid-word',
  'title without accents',
];

export interface LanguageItem {
  kind: LanguageKind;
  q: string;
  target: string;
}

export interface SpokenVideo {
  id: string;
  title: string;
  description: string;
  speakers: string[];
}

const LETTERS = /^\p{L}+$/u;
const WORD = /[\p{L}\p{N}]+/gu;

/** Words too common to tell a talk apart: a surname with one of these finds too many talks. */
const FILLER = new Set([
  'about',
  'with',
  'from',
  'into',
  'your',
  'that',
  'this',
  'what',
  'when',
  'using',
  'python',
]);

const words = (text: string): string[] => text.toLowerCase().match(WORD) ?? [];
/** The text without the accents of its Latin letters (`Mutabilità` → `Mutabilita`); other scripts as they are. */
const unaccented = (text: string): string =>
  text
    .normalize('NFD')
    .replace(/(\p{Script=Latin})\p{M}+/gu, '$1')
    .normalize('NFC');

/**
 * Other English forms of a word, by suffix rules that know nothing of the search's stemmer
 * (plural, -ing, -ed, -ation and back); the caller keeps those that are real words of the
 * sample.
 */
export function inflections(word: string): string[] {
  const forms = new Set<string>();
  const add = (form: string) => form.length >= 3 && form !== word && forms.add(form);
  for (const suffix of ['s', 'es', 'ing', 'ed', 'ation']) add(word + suffix);
  if (word.endsWith('e'))
    for (const suffix of ['ing', 'd', 'ation', 'r', 's']) add(word.slice(0, -1) + suffix);
  if (word.endsWith('y')) for (const suffix of ['ies', 'ied']) add(word.slice(0, -1) + suffix);
  const strip = (suffix: string, ...endings: string[]) => {
    if (!word.endsWith(suffix)) return;
    for (const ending of endings) add(word.slice(0, -suffix.length) + ending);
  };
  strip('ies', 'y');
  strip('es', '');
  if (!word.endsWith('ss')) strip('s', '');
  strip('ing', '', 'e');
  strip('ed', '', 'e');
  strip('ers', '', 'e');
  strip('er', '', 'e');
  strip('ation', '', 'e', 'ate');
  return [...forms];
}

/**
 * `perKind` queries of each language kind, in turn, built deterministically (fixed seed) from
 * `videos` whose title is unique and has three words or more:
 * - other inflection: a run of half the title's words (at least two), one word of four letters or
 *   more replaced by another of its forms that the sample's titles and descriptions use (five
 *   letters or more, so that `with` never becomes `withes`);
 * - speaker and title word: the first speaker's surname and a title word of four letters or more,
 *   where no other video has both;
 * - title start, cut mid-word: the first half of the title's words (at least two), the last one
 *   (five letters or more) cut after three letters or more, one letter short of whole at least,
 *   where no other title starts the same way (else there is no one right answer);
 * - title without accents: a title that has accents, typed without them.
 */
export function languageQueries(videos: SpokenVideo[], perKind: number, seed = 20): LanguageItem[] {
  const next = prng(seed);
  const titleCounts = new Map<string, number>();
  for (const video of videos) {
    const key = video.title.toLowerCase();
    titleCounts.set(key, (titleCounts.get(key) ?? 0) + 1);
  }
  const pool = videos.filter(
    (v) => titleCounts.get(v.title.toLowerCase()) === 1 && words(v.title).length >= 3,
  );
  const vocabulary = new Map<string, number>();
  for (const video of videos)
    for (const word of words(`${video.title} ${video.description}`))
      vocabulary.set(word, (vocabulary.get(word) ?? 0) + 1);
  // A surname and a title word name one talk only when no other talk has both.
  const surname = (video: SpokenVideo) => words(video.speakers[0] ?? '').at(-1);
  const pairs = new Map<string, number>();
  for (const video of videos) {
    const name = surname(video);
    if (name)
      for (const word of new Set(words(video.title)))
        pairs.set(`${name} ${word}`, (pairs.get(`${name} ${word}`) ?? 0) + 1);
  }
  const titles = videos.map((video) => video.title.toLowerCase());
  const starts = (typed: string) => titles.filter((title) => title.startsWith(typed.toLowerCase())).length;
  const pickFrom = <T>(items: T[]): T | undefined => items[Math.floor(next() * items.length)];

  const inflected = (video: SpokenVideo): string | undefined => {
    const titleWords = words(video.title);
    const length = Math.max(2, Math.ceil(titleWords.length / 2));
    const start = Math.floor(next() * (titleWords.length - length + 1));
    const run = titleWords.slice(start, start + length);
    const changeable = run
      .map((word, at) => ({
        at,
        forms: inflections(word).filter((form) => (vocabulary.get(form) ?? 0) >= 3),
      }))
      .filter(({ at, forms }) => run[at]!.length >= 5 && LETTERS.test(run[at]!) && forms.length > 0);
    const change = pickFrom(changeable);
    if (!change) return undefined;
    run[change.at] = pickFrom(change.forms)!;
    return run.join(' ');
  };
  const spoken = (video: SpokenVideo): string | undefined => {
    const name = surname(video);
    if (!name || words(video.speakers[0]!).length < 2) return undefined;
    const word = pickFrom(
      words(video.title).filter(
        (w) => w.length >= 4 && LETTERS.test(w) && !FILLER.has(w) && pairs.get(`${name} ${w}`) === 1,
      ),
    );
    return word && `${name} ${word}`;
  };
  const typing = (video: SpokenVideo): string | undefined => {
    const titleWords = video.title.split(/\s+/).filter((w) => w.length > 0);
    const run = titleWords.slice(0, Math.max(2, Math.ceil(titleWords.length / 2)));
    const last = run.at(-1)!;
    if (!LETTERS.test(last) || last.length < 5) return undefined;
    run[run.length - 1] = last.slice(0, 3 + Math.floor(next() * (last.length - 3)));
    const typed = run.join(' ');
    return starts(typed) === 1 ? typed : undefined;
  };
  const accented = pool.filter((video) => unaccented(video.title) !== video.title);
  const plain = (video: SpokenVideo): string => unaccented(video.title);

  const builders: [LanguageKind, SpokenVideo[], (video: SpokenVideo) => string | undefined][] = [
    ['other inflection', pool, inflected],
    ['speaker and title word', pool, spoken],
    ['title start, cut mid-word', pool, typing],
    ['title without accents', accented, plain],
  ];
  const queries: LanguageItem[] = [];
  for (let i = 0; i < perKind; i += 1)
    for (const [kind, candidates, build] of builders)
      for (let tries = 0; tries < 50; tries += 1) {
        const video = pickFrom(candidates);
        const q = video && build(video);
        if (video && q) {
          queries.push({ kind, q, target: video.id });
          break;
        }
      }
  return queries;
}
