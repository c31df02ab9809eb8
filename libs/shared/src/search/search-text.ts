import stem from 'wink-porter2-stemmer';

/**
 * The words of a text as the search compares them, near enough to how the index's standard
 * tokenizer cuts them: letters and digits, with inner apostrophes (`don't` is one word).
 */
export const QUERY_WORD = /[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu;

/**
 * The words that match nowhere on their own (`the`, `of`, `and`…): Lucene's English stop words,
 * which the index's `video_stop` filter removes where any word of a query may match
 * (video-index.definition.ts), and which the search needs to know too (search-query.builder.ts).
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  'a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with'.split(
    ' ',
  ),
);

/** Latin letters that Unicode does not decompose into a base letter and marks. */
const UNDECOMPOSED: Record<string, string> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  đ: 'd',
  ð: 'd',
  ł: 'l',
  þ: 'th',
  ı: 'i',
  ħ: 'h',
  ŧ: 't',
};
const ASCII = /^[ -~]*$/;
const UNDECOMPOSED_LETTER = new RegExp(`[${Object.keys(UNDECOMPOSED).join('')}]`, 'gu');

/**
 * A word in lower case without its accents (`Español` → `espanol`, `Straße` → `strasse`):
 * compatibility decomposition, marks removed, and the few Latin letters that do not decompose
 * spelt in ASCII. Elasticsearch's test distribution has no ASCII folding, so the application folds
 * (docs/relevance.md, "Inflection and accents").
 */
export function foldWord(word: string): string {
  const lower = word.toLowerCase();
  // Most words are plain ASCII: nothing to decompose (the import folds every word it indexes).
  if (ASCII.test(lower)) return lower;
  return lower
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/’/g, "'")
    .replace(UNDECOMPOSED_LETTER, (letter) => UNDECOMPOSED[letter]!);
}

/** The folded words of a text, in order. */
export function foldedWords(text: string): string[] {
  return (text.match(QUERY_WORD) ?? []).map(foldWord);
}

/**
 * The most words a query is matched by, counted after folding. Folding may turn one character into
 * several words (U+FDFA into four), so a bound on `q`'s length alone does not bound a search's
 * work; any title of the catalogue, pasted whole, stays within it.
 */
export const MAX_QUERY_WORDS = 48;

/** Words as the index's analyzer cuts folded text: a folded word may hold several (`صلى الله`). */
const foldedWordCount = (text: string) => foldedText(text).match(QUERY_WORD)?.length ?? 0;

/**
 * The part of a query the search reads: all of it when its folded words are at most
 * MAX_QUERY_WORDS, else its longest start (in characters) that stays within them; the rest is
 * ignored, as a search box ignores what does not fit.
 */
export function boundedQuery(q: string): string {
  if (foldedWordCount(q) <= MAX_QUERY_WORDS) return q;
  const characters = [...q];
  // The count grows with the prefix, so the longest prefix within the bound is found by halving.
  let fits = 0;
  let over = characters.length;
  while (over - fits > 1) {
    const middle = (fits + over) >> 1;
    if (foldedWordCount(characters.slice(0, middle).join('')) <= MAX_QUERY_WORDS) fits = middle;
    else over = middle;
  }
  return characters.slice(0, fits).join('');
}

/**
 * A folded word's English stem (Porter2: `deploying`, `deployed`, `deployment` → `deploy`;
 * `dataframes` → `datafram`). Applied once: Porter2 is not idempotent (`hettinger` → `hetting` →
 * `het`), so a stem never goes through it again.
 */
export function stemWord(folded: string): string {
  let found = stems.get(folded);
  if (found === undefined) {
    // Words follow Zipf's law: a bounded memo answers most of them without the stemmer.
    if (stems.size >= MEMO_WORDS) stems.clear();
    found = stem(folded);
    stems.set(folded, found);
  }
  return found;
}

const MEMO_WORDS = 100_000;
const stems = new Map<string, string>();

/** A text as the index's folded field holds it: its folded words, separated by spaces. */
export function foldedText(text: string): string {
  return foldedWords(text).join(' ');
}

/** A text as the index's stemmed fields hold it: the stems of its folded words, in order. */
export function stemmedText(text: string): string {
  return foldedWords(text).map(stemWord).join(' ');
}
