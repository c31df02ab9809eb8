import { foldedWords, foldWord, QUERY_WORD, stemWord } from '@app/shared/search/search-text';
import type { SynonymTable } from '@app/shared/synonyms/synonym-table';
import { MIN_PREFIX_LETTERS } from '../engine/search-query.builder';
import { synonymGroups } from '../engine/synonym-expansion';

/** Where a search item's text matched, as HTML-safe fragments (docs/contract.md §7.1). */
export interface Highlights {
  title?: string[];
  description?: string[];
}

/** How the search compares words: case, accents and inflection aside (`Deploying` ~ `deploy`). */
const wordKey = (word: string) => stemWord(foldWord(word));

/** A description fragment's length in characters, about; and how many a description gets at most. */
export const FRAGMENT_LENGTH = 160;
export const MAX_FRAGMENTS = 3;
/** Characters of context kept before a fragment's first match. */
const LEAD = 40;

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => ESCAPES[char]!);

interface Match {
  start: number;
  end: number;
  key: string;
}

/**
 * Marks the words of a text that a query matched: each in `<mark>`…`</mark>`, every other
 * character HTML-escaped, so a client can insert a fragment as HTML whatever the text holds. Words
 * are cut and compared as the search compares them (search-text.ts): the query's words after its
 * typo corrections, in any case, accents or inflection; the last word as typed also matches the
 * start of a word.
 */
export class Highlighter {
  private readonly keys: Set<string>;
  private readonly prefix: string | undefined;

  constructor(q: string, corrections: Record<string, string> = {}, synonyms?: SynonymTable) {
    const typed = foldedWords(q);
    const stems = typed.map((word) => wordKey(corrections[word] ?? word));
    // The words of the synonyms the search also looked for match as the query's own words do.
    const widened = (synonymGroups(stems, synonyms) ?? []).flatMap((group) =>
      group.alternatives.flatMap((term) => term.stems),
    );
    this.keys = new Set([...stems, ...widened]);
    const last = typed.at(-1);
    this.prefix = last && [...last].length >= MIN_PREFIX_LETTERS ? last : undefined;
  }

  /** The highlights of an item, with only the fields that matched. */
  highlight(item: { title: string; description: string }): Highlights {
    const title = this.matches(item.title);
    const description = this.matches(item.description);
    return {
      ...(title.length > 0 ? { title: [marked(item.title, 0, item.title.length, title)] } : {}),
      ...(description.length > 0 ? { description: fragments(item.description, description) } : {}),
    };
  }

  private matches(text: string): Match[] {
    const found: Match[] = [];
    for (const word of text.matchAll(QUERY_WORD)) {
      const key = wordKey(word[0]);
      if (this.keys.has(key) || (this.prefix !== undefined && foldWord(word[0]).startsWith(this.prefix))) {
        found.push({ start: word.index, end: word.index + word[0].length, key });
      }
    }
    return found;
  }
}

/** `text[from, to)` escaped, with the matches inside it marked. */
function marked(text: string, from: number, to: number, matches: Match[]): string {
  let html = '';
  let at = from;
  for (const match of matches) {
    if (match.start < from || match.end > to) continue;
    html += `${escapeHtml(text.slice(at, match.start))}<mark>${escapeHtml(text.slice(match.start, match.end))}</mark>`;
    at = match.end;
  }
  return (html + escapeHtml(text.slice(at, to))).trim();
}

/** A window of the text around a match, cut at spaces so no word is split. */
function windowAround(text: string, match: Match): { start: number; end: number } {
  let start = Math.max(0, match.start - LEAD);
  if (start > 0 && !/\s/.test(text[start - 1]!)) {
    const space = text.slice(start, match.start).search(/\s/);
    start = space === -1 ? match.start : start + space + 1;
  }
  let end = Math.min(text.length, start + FRAGMENT_LENGTH);
  if (end < text.length && !/\s/.test(text[end]!)) {
    const space = text.slice(match.end, end).search(/\s\S*$/);
    end = space === -1 ? Math.max(end, match.end) : match.end + space;
  }
  // Never cut a character in two.
  if (end < text.length && /[\uD800-\uDBFF]/.test(text[end - 1]!)) end -= 1;
  return { start, end };
}

/**
 * Up to `MAX_FRAGMENTS` fragments of a long text, in text order, chosen for the most different
 * query words each holds (then the most matches); a short text is one fragment.
 */
function fragments(text: string, matches: Match[]): string[] {
  if (text.length <= FRAGMENT_LENGTH) return [marked(text, 0, text.length, matches)];
  const candidates = matches.map((match) => {
    const window = windowAround(text, match);
    const inside = matches.filter((other) => other.start >= window.start && other.end <= window.end);
    return { ...window, words: new Set(inside.map((other) => other.key)).size, hits: inside.length };
  });
  candidates.sort((a, b) => b.words - a.words || b.hits - a.hits || a.start - b.start);
  const chosen: typeof candidates = [];
  for (const candidate of candidates) {
    if (chosen.length === MAX_FRAGMENTS) break;
    if (chosen.every((other) => candidate.end <= other.start || candidate.start >= other.end))
      chosen.push(candidate);
  }
  return chosen
    .sort((a, b) => a.start - b.start)
    .map((window) => marked(text, window.start, window.end, matches));
}
