import { Client } from '@elastic/elasticsearch';
import type { AppConfig } from '../config/config.schema';

/** Injection token for the Elasticsearch client. */
export const SEARCH_CLIENT = Symbol('SEARCH_CLIENT');

export function createSearchClient(config: Pick<AppConfig, 'ELASTICSEARCH_URL'>): Client {
  return new Client({
    node: config.ELASTICSEARCH_URL,
    requestTimeout: 10_000,
    maxRetries: 2,
    // The test distribution has no root endpoint, so the client must not sniff or check the product on it.
    sniffOnStart: false,
  });
}
