import type { SynonymTable } from '@app/shared/synonyms/synonym-table';

/** What a search asks the engine: the parameters of docs/contract.md §7 as the engine reads them. */

export const SEARCH_SORTS = ['relevance', 'newest', 'oldest'] as const;
export type SearchSort = (typeof SEARCH_SORTS)[number];

/** The counts a search can add to its answer (docs/contract.md §7.1). */
export const SEARCH_FACETS = ['year', 'author'] as const;
export type SearchFacet = (typeof SEARCH_FACETS)[number];
/** How many values each facet lists, most frequent first. */
export const FACET_SIZE = 20;

export interface SearchCriteria {
  q: string;
  authorId?: string;
  /** Inclusive lower bound, already resolved to an instant. */
  from?: Date;
  /** Inclusive upper bound, already resolved to an instant. */
  to?: Date;
  sort: SearchSort;
  /** Folded words of `q` the index does not hold, each with the word that replaces it. */
  corrections?: Record<string, string>;
  /** Counts to add over all matches. */
  facets?: readonly SearchFacet[];
  /** The synonym set in force when the page is read (docs/contract.md §7.3); none widens nothing. */
  synonyms?: SynonymTable;
}

/**
 * How one criterion binds a cursor (docs/contract.md §7: "a cursor belongs to its search"): the
 * query parameter a client must keep, and the criterion's value as the cursor compares it; or why
 * the criterion does not bind.
 */
type Binding<T> = { parameter: string; value: (criterion: T) => unknown } | { notBinding: string };

/**
 * Every criterion, binding a cursor or declared not to. Typed over every key of `SearchCriteria`:
 * a criterion added there is a compile error here until it is bound or declared not binding, so a
 * new filter can never let a cursor carry over to another search. The order is the fingerprint's.
 */
export const CURSOR_BINDING: { [K in keyof SearchCriteria]-?: Binding<SearchCriteria[K]> } = {
  // Whitespace around q is not a different search.
  q: { parameter: 'q', value: (q) => q.trim() },
  authorId: { parameter: 'authorId', value: (authorId) => authorId ?? null },
  from: { parameter: 'dateFrom', value: (from) => from?.toISOString() ?? null },
  to: { parameter: 'dateTo', value: (to) => to?.toISOString() ?? null },
  sort: { parameter: 'sort', value: (sort) => sort },
  corrections: { notBinding: "set by the walk's first page, and carried in the cursor itself" },
  facets: { notBinding: 'counts select and order nothing: each page may ask for other facets' },
  synonyms: { notBinding: "the service's, not the caller's: each page reads with the set in force" },
};

const boundKeys = (Object.keys(CURSOR_BINDING) as (keyof SearchCriteria)[]).filter(
  (key) => 'parameter' in CURSOR_BINDING[key],
);

/** The values of the criteria a cursor is bound to, in `CURSOR_BINDING`'s order. */
export function boundValues(criteria: SearchCriteria): unknown[] {
  return boundKeys.map((key) => {
    const binding = CURSOR_BINDING[key] as { value: (criterion: unknown) => unknown };
    return binding.value(criteria[key]);
  });
}

/** The query parameters a cursor is bound to, as a client names them. */
export const BOUND_PARAMETERS: readonly string[] = boundKeys.map(
  (key) => (CURSOR_BINDING[key] as { parameter: string }).parameter,
);
