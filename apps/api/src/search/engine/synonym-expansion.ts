import type { SynonymTable, SynonymTerm } from '@app/shared/synonyms/synonym-table';

/**
 * The most words of synonyms one query is widened by, in the order of its words: however many
 * rules name a word, what one search costs the engine stays bounded (docs/contract.md §7).
 */
export const MAX_SYNONYM_WORDS = 64;

/** A run of a query's words (`start` to before `end`) and the terms it also finds. */
export interface SynonymGroup {
  start: number;
  end: number;
  alternatives: SynonymTerm[];
}

/**
 * The runs of a query's words (their stems, in order) that the set widens, within
 * MAX_SYNONYM_WORDS; undefined when there are none, and the query is built as without synonyms.
 */
export function synonymGroups(
  stems: readonly string[],
  table: SynonymTable | undefined,
): SynonymGroup[] | undefined {
  if (!table || table.empty) return undefined;
  const groups: SynonymGroup[] = [];
  let budget = MAX_SYNONYM_WORDS;
  for (const match of table.match(stems)) {
    const alternatives: SynonymTerm[] = [];
    for (const term of match.alternatives) {
      if (term.stems.length > budget) break;
      budget -= term.stems.length;
      alternatives.push(term);
    }
    if (alternatives.length > 0) groups.push({ start: match.start, end: match.end, alternatives });
    if (budget === 0) break;
  }
  return groups.length > 0 ? groups : undefined;
}

/** A query's words split for widening: those of no group, in order, and each group's own words. */
export function splitByGroups<T>(items: readonly T[], groups: readonly SynonymGroup[]) {
  const grouped = new Set(
    groups.flatMap((group) => items.slice(group.start, group.end).map((_, i) => group.start + i)),
  );
  return {
    plain: items.filter((_, at) => !grouped.has(at)),
    own: groups.map((group) => items.slice(group.start, group.end)),
  };
}
