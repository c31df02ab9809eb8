import type { estypes } from '@elastic/elasticsearch';
import { STOP_WORDS } from './search-text';

/**
 * The search index, built only from analysis that Elasticsearch's server core ships (standard
 * tokenizer, lowercase, stop), so the same definition runs on the test distribution and in
 * production. That core has no stemmer and no ASCII folding, so the application folds accents and
 * stems words itself (search-text.ts) and writes the results beside the original text: `folded`
 * (the title's words without accents) and `stems` (the stems of those words), which the search
 * queries; the original `title` and `description` stay as written. Bump INDEX_DEFINITION_VERSION when the mapping or the derived
 * text changes: the reindex (`cli reindex`) builds a new index and swaps the alias. Each index
 * carries the version it was built with (`_meta.definitionVersion`), and a process is not ready
 * while the alias points at an older one (`IndexAdmin.checkDefinition`).
 */
export const INDEX_DEFINITION_VERSION = 4;

/**
 * The path of every field of the index, as queries, sorts, aggregations and suggestions name it:
 * the one place a field's name is written outside the mapping (a spec checks that the two agree).
 */
export const VIDEO_FIELDS = {
  id: 'id',
  authorId: 'authorId',
  state: 'state',
  tags: 'tags',
  title: 'title',
  description: 'description',
  /** The title's folded words, with prefixes of 2–10 letters indexed. */
  foldedTitle: 'folded.title',
  /** Stems of the title and the speakers. */
  headingStems: 'stems.heading',
  descriptionStems: 'stems.description',
  /** Stems of the tags and the event. */
  labelStems: 'stems.labels',
  /** Every folded word, once: only asked which words the index holds. */
  spelling: 'spelling',
  publishedAt: 'publishedAt',
  /** The video's language, an ISO 639-3 code (`und` when undetermined). */
  language: 'language',
} as const;

export type VideoField = (typeof VIDEO_FIELDS)[keyof typeof VIDEO_FIELDS];

/** What an index says about itself in its mapping's `_meta`. */
export interface VideoIndexMeta {
  definitionVersion: number;
}

export const videoIndexSettings: estypes.IndicesIndexSettings = {
  number_of_shards: 1,
  number_of_replicas: 0,
  analysis: {
    filter: {
      // Lucene's English stop words (`_english_`), spelt out: the search reads the same list.
      video_stop: { type: 'stop', stopwords: [...STOP_WORDS] },
    },
    analyzer: {
      video_text: { type: 'custom', tokenizer: 'standard', filter: ['lowercase'] },
      video_text_stop: { type: 'custom', tokenizer: 'standard', filter: ['lowercase', 'video_stop'] },
    },
  },
};
/** How an index is spread over the cluster: ELASTICSEARCH_SHARDS and ELASTICSEARCH_REPLICAS. */
export interface IndexShape {
  shards: number;
  replicas: number;
}

/** The definition's settings with the configured shape in place of its single-node defaults. */
export function videoIndexSettingsFor({ shards, replicas }: IndexShape): estypes.IndicesIndexSettings {
  return { ...videoIndexSettings, number_of_shards: shards, number_of_replicas: replicas };
}

/** Words for matching only: no positions (no phrase runs on them), and not in `_source`. */
const stems = (analyzer: string): estypes.MappingProperty => ({
  type: 'text',
  analyzer,
  index_options: 'freqs',
});

export const videoIndexMappings: estypes.MappingTypeMapping = {
  dynamic: 'strict',
  _meta: { definitionVersion: INDEX_DEFINITION_VERSION } satisfies VideoIndexMeta,
  // The derived text is rebuilt from MySQL on every write, never read back.
  _source: { excludes: ['folded.*', 'stems.*', 'spelling'] },
  properties: {
    id: { type: 'keyword' },
    authorId: { type: 'keyword' },
    state: { type: 'keyword' },
    tags: { type: 'keyword' },
    title: { type: 'text', analyzer: 'video_text' },
    description: { type: 'text', analyzer: 'video_text_stop' },
    // The title's words, folded: the exact-form phrase, and the last word of a query as a prefix
    // (prefixes of 2–10 letters indexed: one term to look up; a longer prefix expands to the words
    // that start with it, and Elasticsearch gathers all their documents before it can skip any).
    folded: {
      properties: {
        title: { type: 'text', analyzer: 'video_text', index_prefixes: { min_chars: 2, max_chars: 10 } },
      },
    },
    // The stems of the folded words: any inflection, no accents needed. The heading is the title
    // and the speakers; the labels are the tags and the event.
    stems: {
      properties: {
        heading: stems('video_text'),
        description: stems('video_text_stop'),
        labels: stems('video_text'),
      },
    },
    // Every folded word of the heading, description and labels, once, for one question only: which
    // words of a query the index holds nowhere (typo corrections, see the API's suggest-query.builder). Words
    // only: no frequencies, positions or norms.
    spelling: { type: 'text', analyzer: 'video_text', index_options: 'docs', norms: false },
    publishedAt: { type: 'date' },
    language: { type: 'keyword' },
  },
};

/** What one video looks like in the index. */
export interface VideoDocument {
  id: string;
  authorId: string;
  state: string;
  title: string;
  description: string;
  tags: string[];
  publishedAt: string | null;
  language: string;
  folded: { title: string };
  /** Heading: the title and each speaker; labels: each tag and the event. */
  stems: { heading: string[]; description: string; labels: string[] };
  /** Every folded word of the heading, description and labels, once. */
  spelling: string;
}
