import type { estypes } from '@elastic/elasticsearch';

/**
 * The search index, built only from analysis that Elasticsearch's server core ships (standard
 * tokenizer, lowercase, stop, shingle), so the same definition runs on the test distribution and
 * in production. Bump INDEX_DEFINITION_VERSION when the mapping changes: the reindex builds a new
 * index and swaps the alias.
 */
export const INDEX_DEFINITION_VERSION = 2;

export const videoIndexSettings: estypes.IndicesIndexSettings = {
  number_of_shards: 1,
  number_of_replicas: 0,
  analysis: {
    filter: {
      video_stop: { type: 'stop', stopwords: '_english_' },
      video_shingle: { type: 'shingle', min_shingle_size: 2, max_shingle_size: 2, output_unigrams: false },
    },
    analyzer: {
      video_text: { type: 'custom', tokenizer: 'standard', filter: ['lowercase'] },
      video_text_stop: { type: 'custom', tokenizer: 'standard', filter: ['lowercase', 'video_stop'] },
      video_shingle: { type: 'custom', tokenizer: 'standard', filter: ['lowercase', 'video_shingle'] },
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

const text = (analyzer: string): estypes.MappingProperty => ({
  type: 'text',
  analyzer,
  copy_to: 'spelling',
  fields: { shingles: { type: 'text', analyzer: 'video_shingle' } },
});

export const videoIndexMappings: estypes.MappingTypeMapping = {
  dynamic: 'strict',
  properties: {
    id: { type: 'keyword' },
    authorId: { type: 'keyword' },
    state: { type: 'keyword' },
    tags: {
      type: 'keyword',
      copy_to: 'spelling',
      fields: { text: { type: 'text', analyzer: 'video_text' } },
    },
    // Every word of the title, description and tags, for one question only: which words of a
    // query the index holds nowhere (typo corrections, see search-query.builder). Words only: no
    // frequencies, positions or norms, and not stored.
    spelling: { type: 'text', analyzer: 'video_text', index_options: 'docs', norms: false },
    title: text('video_text'),
    description: text('video_text_stop'),
    publishedAt: { type: 'date' },
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
}
