import { errors } from '@elastic/elasticsearch';

/**
 * How the search engine tells Elasticsearch's failures apart: a lost point in time (its cursor
 * cannot go on) from an index that cannot answer now (a 503 with Retry-After).
 */

/** A point in time that expired or lost a shard copy: its cursor cannot go on. */
export function isLostPointInTime(error: unknown): boolean {
  return (
    error instanceof errors.ResponseError &&
    /search_context_missing_exception|No search context found/.test(JSON.stringify(error.body ?? ''))
  );
}

/** The index cannot answer now: unreachable, overloaded, or (before the first setup) not there at all. */
export function isUnavailable(error: unknown): boolean {
  return (
    (error instanceof errors.ResponseError &&
      error.body !== null &&
      typeof error.body === 'object' &&
      JSON.stringify(error.body).includes('index_not_found_exception')) ||
    error instanceof errors.ConnectionError ||
    error instanceof errors.TimeoutError ||
    error instanceof errors.NoLivingConnectionsError ||
    (error instanceof errors.ResponseError && (error.statusCode ?? 0) >= 500)
  );
}
