import type { estypes } from '@elastic/elasticsearch';
import { foldedWords, stemWord } from '@app/shared/search/search-text';
import { VIDEO_FIELDS as FIELD } from '@app/shared/search/video-index.definition';
import type { SynonymTable } from '@app/shared/synonyms/synonym-table';
import { activeOnly, completeSort, MIN_PREFIX_LETTERS } from './search-query.builder';
import { splitByGroups, synonymGroups, type SynonymGroup } from './synonym-expansion';

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
export function buildSuggestRequest(
  q: string,
  limit: number,
  index: string,
  synonyms?: SynonymTable,
): estypes.SearchRequest {
  const words = foldedWords(q);
  const start = titleStart(words);
  return {
    index,
    size: limit,
    _source: [FIELD.title],
    track_total_hits: false,
    query: {
      bool: {
        filter: [activeOnly],
        must: titleWords(words, synonymGroups(words.map(stemWord), synonyms)),
        ...(start ? { should: start } : {}),
      },
    },
    sort: completeSort('relevance'),
  };
}

/** Every word in the title, the last as the start of a word: as typed, `text` its folded words. */
const typedInTitle = (text: string): estypes.QueryDslQueryContainer => ({
  match_bool_prefix: { [TITLE]: { query: text, operator: 'and' } },
});

/**
 * Every word of `words` in the title (the last as the start of a word), widened by synonyms when
 * `groups` has some: each group's words, or any term it also finds, in the title as a phrase (the
 * title keeps positions). A group that ends the query keeps its last word as a prefix.
 */
function titleWords(words: string[], groups: SynonymGroup[] | undefined): estypes.QueryDslQueryContainer {
  if (!groups) return typedInTitle(words.join(' '));
  const { plain, own } = splitByGroups(words, groups);
  const endsInGroup = groups.at(-1)!.end === words.length;
  const widened = groups.map((group, at) => {
    const last = endsInGroup && at === groups.length - 1;
    const ownWords = own[at]!.join(' ');
    return {
      dis_max: {
        queries: [
          last
            ? typedInTitle(ownWords)
            : { match: { [TITLE]: { query: ownWords, operator: 'and' as const } } },
          ...group.alternatives.map((term) => ({ match_phrase: { [TITLE]: term.words.join(' ') } })),
        ],
      },
    };
  });
  // The words of no group; the query's last word among them is still the last, and a prefix.
  const rest =
    plain.length === 0
      ? []
      : [
          endsInGroup
            ? { match: { [TITLE]: { query: plain.join(' '), operator: 'and' as const } } }
            : typedInTitle(plain.join(' ')),
        ];
  return { bool: { must: [...rest, ...widened] } };
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
