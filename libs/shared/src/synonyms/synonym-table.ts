import { foldedWords, stemWord } from '../search/search-text';
import type { SynonymRule } from './synonym-rules';

/** A rule's term as the search compares it: its folded words and their stems. */
export interface SynonymTerm {
  words: readonly string[];
  stems: readonly string[];
}

/** A run of a query's words that a rule names, with the terms it also finds. */
export interface SynonymMatch {
  /** The run's first word and the one after its last, as indices into the query's words. */
  start: number;
  end: number;
  alternatives: readonly SynonymTerm[];
}

/** One term's entry: its stems and the terms it finds, in the order the rules gave them. */
interface Entry {
  stems: readonly string[];
  alternatives: SynonymTerm[];
  keys: Set<string>;
}

const termOf = (text: string): SynonymTerm => {
  const words = foldedWords(text);
  return { words, stems: words.map(stemWord) };
};
const keyOf = (term: SynonymTerm) => term.stems.join(' ');

/**
 * A synonym set compiled for queries: for each term, the terms it finds. Looked up by a query
 * word's stem (one map lookup per word, so a query no rule names costs nothing more), matched
 * over runs of words for terms of several words, the longest run first, as Solr's synonym filter
 * does. Rules are not chained: `a, b` and `b, c` make `a` find `b`, not `c`.
 */
export class SynonymTable {
  static readonly EMPTY = new SynonymTable([]);

  /** Entries by their first stem, longest terms first. */
  private readonly byFirstStem = new Map<string, Entry[]>();
  /** Every stem any term holds: words the search does not correct as typos. */
  private readonly stems = new Set<string>();
  readonly rules: number;

  constructor(rules: readonly SynonymRule[]) {
    this.rules = rules.length;
    const entries = new Map<string, Entry>();
    const add = (from: SynonymTerm, to: readonly SynonymTerm[]) => {
      const key = keyOf(from);
      let entry = entries.get(key);
      if (!entry) {
        entry = { stems: from.stems, alternatives: [], keys: new Set([key]) };
        entries.set(key, entry);
      }
      for (const term of to) {
        const found = keyOf(term);
        if (entry.keys.has(found)) continue;
        entry.keys.add(found);
        entry.alternatives.push(term);
      }
    };
    for (const rule of rules) {
      if (rule.kind === 'equivalent') {
        const terms = rule.terms.map(termOf);
        for (const term of terms) add(term, terms);
      } else {
        const to = rule.to.map(termOf);
        for (const from of rule.from) add(termOf(from), to);
      }
      const all = rule.kind === 'equivalent' ? rule.terms : [...rule.from, ...rule.to];
      for (const text of all) for (const stem of termOf(text).stems) this.stems.add(stem);
    }
    for (const entry of entries.values()) {
      if (entry.alternatives.length === 0) continue;
      const first = entry.stems[0]!;
      const list = this.byFirstStem.get(first) ?? [];
      list.push(entry);
      this.byFirstStem.set(first, list);
    }
    for (const list of this.byFirstStem.values()) list.sort((a, b) => b.stems.length - a.stems.length);
  }

  /** Whether no rule finds anything: the search is then built as without synonyms. */
  get empty(): boolean {
    return this.byFirstStem.size === 0;
  }

  /** Whether a term of some rule holds this stem. */
  names(stem: string): boolean {
    return this.stems.has(stem);
  }

  /**
   * The runs of `stems` (a query's, in order) that rules name, left to right, each the longest
   * that starts at its first word; a word belongs to one run at most.
   */
  match(stems: readonly string[]): SynonymMatch[] {
    const found: SynonymMatch[] = [];
    let at = 0;
    while (at < stems.length) {
      const entry = this.byFirstStem
        .get(stems[at]!)
        ?.find((candidate) => candidate.stems.every((stem, i) => stems[at + i] === stem));
      if (!entry) {
        at += 1;
        continue;
      }
      found.push({ start: at, end: at + entry.stems.length, alternatives: entry.alternatives });
      at += entry.stems.length;
    }
    return found;
  }
}
