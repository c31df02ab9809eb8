import type { estypes } from '@elastic/elasticsearch';
import { foldedWords, stemWord } from '@app/shared/search/search-text';
import { VIDEO_FIELDS as FIELD } from '@app/shared/search/video-index.definition';
import { activeOnly, completeSort, MIN_PREFIX_LETTERS } from './search-query.builder';

/**
 * The requests about words rather than videos: titles that complete what a search box holds
 * (docs/contract.md §7.2), and which of a query's words the index lacks (typo corrections).
 */

/** The title's folded words, with its prefixes indexed (video-index.definition.ts). */
const TITLE = FIELD.foldedTitle;

/**
 * Titles that start as `words` (folded) do, the last one as the start of a word: a span at the
 * title's start. The prefix takes the 50 most frequent words it can complete, so a single letter
 * cannot expand into thousands of clauses.
 */
function titleStart(words: string[]): estypes.QueryDslQueryContainer | undefined {
  const last = words.at(-1);
  if (!last) return undefined;
  const spans: estypes.QueryDslSpanQuery[] = [
    ...words.slice(0, -1).map((word) => ({ span_term: { [TITLE]: word } })),
    { span_multi: { match: { prefix: { [TITLE]: { value: last, rewrite: 'top_terms_50' } } } } },
  ];
  const match: estypes.QueryDslSpanQuery =
    spans.length === 1 ? spans[0]! : { span_near: { clauses: spans, slop: 0, in_order: true } };
  return { span_first: { match, end: words.length, boost: 2 } };
}

/**
 * Titles that complete what a search box holds (docs/contract.md §7.2): every word of `q` in the
 * title (accents and case aside), the last one as the start of a word (an indexed prefix up to 10
 * letters; beyond, at most 50 words of the index complete it), titles that start as typed first,
 * then the better match, then the newer video. Active videos only.
 */
export function buildSuggestRequest(q: string, limit: number, index: string): estypes.SearchRequest {
  const words = foldedWords(q);
  const text = words.join(' ');
  const start = titleStart(words);
  return {
    index,
    size: limit,
    _source: [FIELD.title],
    track_total_hits: false,
    query: {
      bool: {
        filter: [activeOnly],
        must: { match_bool_prefix: { [TITLE]: { query: text, operator: 'and' } } },
        ...(start ? { should: start } : {}),
      },
    },
    sort: completeSort('relevance'),
  };
}

/** How many close words the suggester offers per word: the closest may be held by hidden videos only. */
const TYPO_CANDIDATES = 5;

/**
 * Asks the index which of `q`'s words (folded) it holds nowhere (heading, description, tags, event),
 * each with its closest words: Elasticsearch's term suggester over the `spelling` field, only for
 * missing words (a word that is there costs one dictionary lookup). The suggester reads the terms
 * of every document, deleted or hidden too: its words are candidates only (`activeWordsRequest`).
 */
export function typoSuggestions(q: string): estypes.SearchSuggester {
  return {
    spelling: {
      text: foldedWords(q).join(' '),
      term: {
        field: FIELD.spelling,
        suggest_mode: 'missing',
        size: TYPO_CANDIDATES,
        min_word_length: 4,
        prefix_length: 1,
      },
    },
  };
}

const STEM_FIELDS = [FIELD.headingStems, FIELD.descriptionStems, FIELD.labelStems];

/**
 * Asks, of active videos only, whether they hold each of `words` anywhere, as it is or as another
 * form of it, and which of `candidates` (the suggester's words) they hold: a size-0 search filtered
 * on `activeOnly`, counting per word the documents whose `spelling` field has it or whose stems have
 * its stem. A form the index lacks is no typo (`pythons` finds Python through its stem), nor is
 * `q`'s last word when a title word starts with it (`datafr` is being typed, not misspelt); and the
 * suggester's "missing" is per shard: with several shards, a word present in one shard but not
 * another comes back with a correction. A candidate only a soft-deleted video holds, or a deleted
 * document the engine has not merged away, is held by no active video: it is never offered.
 */
export function activeWordsRequest(
  index: string,
  words: string[],
  candidates: string[],
  q: string,
): estypes.SearchRequest {
  const last = foldedWords(q).at(-1);
  const held = (word: string): estypes.QueryDslQueryContainer => ({
    bool: {
      should: [
        { term: { [FIELD.spelling]: word } },
        ...STEM_FIELDS.map((field) => ({ term: { [field]: stemWord(word) } })),
        ...(word === last && [...word].length >= MIN_PREFIX_LETTERS
          ? [{ prefix: { [FIELD.foldedTitle]: word } }]
          : []),
      ],
    },
  });
  const filters = (list: string[], query: (word: string) => estypes.QueryDslQueryContainer) => ({
    filters: { filters: Object.fromEntries(list.map((word) => [word, query(word)])) },
  });
  return {
    index,
    size: 0,
    track_total_hits: false,
    query: { bool: { filter: [activeOnly] } },
    aggs: {
      held: filters(words, held),
      offered: filters(candidates, (word) => ({ term: { [FIELD.spelling]: word } })),
    },
  };
}
