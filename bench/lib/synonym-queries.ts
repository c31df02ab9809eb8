import { prng } from './random';

/**
 * Queries that use a synonym the catalogue does not hold (docs/contract.md §7.3): a title word's
 * abbreviation that no video uses, which only a synonym rule can tie to the word.
 */
export const SYNONYM_KIND = 'abbreviation no video holds';

export interface SynonymVideo {
  id: string;
  title: string;
  description: string;
  tags: string[];
  speakers: string[];
  event: string | null;
}

export interface SynonymItem {
  kind: typeof SYNONYM_KIND;
  q: string;
  target: string;
}

const WORD = /[\p{L}\p{N}]+/gu;
const LETTERS = /^[a-z]+$/;
const words = (text: string): string[] => text.toLowerCase().match(WORD) ?? [];

/** A word's numeronym, as `k8s` is Kubernetes's: its first letter, how many letters between, its last. */
export const numeronym = (word: string) => `${word[0]}${word.length - 2}${word.at(-1)}`;

/**
 * `perKind` queries, built deterministically (fixed seed) from `videos` whose title is unique and
 * has three words or more: a title word of eight letters or more written as its numeronym, which
 * no video's title, description, tags, speakers or event holds, beside another title word of four
 * letters or more, where no other title holds both words; and the rules that tie each numeronym to
 * its word (`k8s, kubernetes`), one per numeronym (two words that share one are left out).
 */
export function synonymQueries(
  videos: SynonymVideo[],
  perKind: number,
  seed = 73,
): { queries: SynonymItem[]; rules: string[] } {
  const next = prng(seed);
  const held = new Set<string>();
  const titleCounts = new Map<string, number>();
  const pairs = new Map<string, number>();
  /** Each numeronym the titles' words would make, and the words that make it. */
  const abbreviated = new Map<string, Set<string>>();
  for (const video of videos) {
    const text = [video.title, video.description, ...video.tags, ...video.speakers, video.event ?? ''].join(
      ' ',
    );
    for (const word of words(text)) held.add(word);
    const key = video.title.toLowerCase();
    titleCounts.set(key, (titleCounts.get(key) ?? 0) + 1);
    const titleWords = [...new Set(words(video.title))];
    for (const word of titleWords) {
      if (word.length >= 8 && LETTERS.test(word)) {
        const made = abbreviated.get(numeronym(word)) ?? new Set();
        abbreviated.set(numeronym(word), made.add(word));
      }
      for (const other of titleWords)
        if (other !== word) pairs.set(`${word} ${other}`, (pairs.get(`${word} ${other}`) ?? 0) + 1);
    }
  }
  const usable = (word: string) => {
    const short = numeronym(word);
    return word.length >= 8 && LETTERS.test(word) && !held.has(short) && abbreviated.get(short)?.size === 1;
  };
  const pool = videos.filter(
    (video) => titleCounts.get(video.title.toLowerCase()) === 1 && words(video.title).length >= 3,
  );
  const pickFrom = <T>(items: T[]): T | undefined => items[Math.floor(next() * items.length)];
  const queries: SynonymItem[] = [];
  const rules = new Map<string, string>();
  for (let i = 0; i < perKind; i += 1)
    for (let tries = 0; tries < 50; tries += 1) {
      const video = pickFrom(pool)!;
      const titleWords = [...new Set(words(video.title))];
      const word = pickFrom(titleWords.filter(usable));
      const other =
        word &&
        pickFrom(
          titleWords.filter(
            (w) => w !== word && w.length >= 4 && LETTERS.test(w) && pairs.get(`${word} ${w}`) === 1,
          ),
        );
      if (!word || !other) continue;
      queries.push({ kind: SYNONYM_KIND, q: `${numeronym(word)} ${other}`, target: video.id });
      rules.set(numeronym(word), `${numeronym(word)}, ${word}`);
      break;
    }
  return { queries, rules: [...rules.values()] };
}
