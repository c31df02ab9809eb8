import { LRUCache } from 'lru-cache';
import { foldedWords } from '@app/shared/search/search-text';

/** No correction: the index holds the word, or holds nothing close to it. */
const NONE = '';

/**
 * What the index said about each word a search asked it about: held (no correction) or the word
 * that replaces it. A search whose words are all known here needs no suggester and never a second
 * ranking; popular words are asked about once per `ttlMs`, so a word that new videos bring in stops
 * being corrected within that time.
 */
export class TypoCorrections {
  private readonly known: LRUCache<string, string>;

  constructor(maxWords = 50_000, ttlMs = 10 * 60_000) {
    this.known = new LRUCache({ max: maxWords, ttl: ttlMs });
  }

  /** The corrections of `q`'s words (folded), or undefined when some word has not been asked about yet. */
  lookup(q: string): Record<string, string> | undefined {
    const found: Record<string, string> = {};
    for (const word of foldedWords(q)) {
      const correction = this.known.get(word);
      if (correction === undefined) return undefined;
      if (correction !== NONE) found[word] = correction;
    }
    return found;
  }

  /**
   * Remembers the suggester's verdict on every word of `q` (folded, as `lookup` reads them): its
   * correction, or none. Every word, not only those the suggester named: it cuts some (Japanese
   * text, for one) into words of its own, and a word never learnt would bring it back every time.
   */
  learn(q: string, corrections: Record<string, string>): void {
    for (const word of foldedWords(q)) this.known.set(word, corrections[word] ?? NONE);
  }
}
