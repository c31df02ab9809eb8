import { Client, errors, type estypes } from '@elastic/elasticsearch';
import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '@app/shared/config/config.module';
import type { AppConfig } from '@app/shared/config/config.schema';
import { promptRetryBackoff, SEARCH_CLIENT, SEARCH_CLIENT_RETRIES } from '@app/shared/search/search.client';

/** The statuses of a search the client sends again (the cluster may answer once it has reacted). */
const RECOVERABLE = new Set([502, 503, 504]);

/** One search of an `_msearch` that failed, as the client reports a search that failed alone. */
function failedSearch(failed: estypes.ErrorResponseBase, retries: number): errors.ResponseError {
  return new errors.ResponseError({
    body: failed,
    statusCode: failed.status,
    headers: {},
    warnings: null,
    meta: {
      context: null,
      name: 'msearch',
      request: { params: { method: 'POST', path: '/_msearch' }, options: {}, id: 0 },
      connection: null,
      attempts: retries,
      aborted: false,
    },
  });
}

/**
 * Searches as `_msearch` frames them: each a header (what the search runs on and how) and a body.
 * The header names the index, the request cache and partial results; a point in time is in the body.
 */
export function msearchSearches(
  requests: estypes.SearchRequest[],
): (estypes.MsearchMultisearchHeader | estypes.SearchRequest)[] {
  return requests.flatMap((request) => {
    const { index, request_cache, allow_partial_search_results, ...body } = request;
    const header: estypes.MsearchMultisearchHeader = { index, request_cache, allow_partial_search_results };
    return [header, body];
  });
}

/**
 * The search engine's wire to the index: searches alone or together, and points in time, over the
 * alias. The only reader of the index in the API; the engine's verbs (`SearchEngine`) go through it.
 */
@Injectable()
export class IndexReads {
  /** The alias every search and point in time reads. */
  readonly alias: string;

  constructor(
    @Inject(SEARCH_CLIENT) private readonly client: Client,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.alias = config.ELASTICSEARCH_INDEX;
  }

  /** Runs one search over the alias or a point in time. */
  search(request: estypes.SearchRequest): Promise<estypes.SearchResponse> {
    return this.client.search(request);
  }

  /**
   * Runs searches together, as one `_msearch`: one HTTP request for the API to send and for
   * Elasticsearch to parse and dispatch, cheaper for both than separate searches
   * (docs/benchmarks.md). `filterPath` is each answer's, as for one
   * search. A search that fails throws what it would have thrown alone (a `ResponseError` with its
   * status); when one fails in a way the cluster recovers from (502–504: a node lost, shards moving),
   * all are sent again, as the client retries a single search, up to its retries.
   */
  async searchTogether(
    requests: estypes.SearchRequest[],
    filterPath: string[],
  ): Promise<estypes.SearchResponse[]> {
    const searches = msearchSearches(requests);
    for (let attempt = 0; ; attempt += 1) {
      const { responses } = await this.client.msearch({
        searches,
        filter_path: [
          ...filterPath.map((path) => `responses.${path}`),
          'responses.status',
          'responses.error',
        ],
      });
      const failed = responses.find((response): response is estypes.ErrorResponseBase => 'error' in response);
      // Each answer carries its status: the answers of single searches do not.
      if (!failed) return responses.map(({ status: _status, ...answer }) => answer as estypes.SearchResponse);
      if (attempt >= SEARCH_CLIENT_RETRIES || !RECOVERABLE.has(failed.status)) {
        throw failedSearch(failed, attempt);
      }
      await sleep(promptRetryBackoff(0, 0, attempt + 1) * 1_000);
    }
  }

  /** Opens a point in time on the alias: a frozen view that cursor pages read (see `CursorWalks`). */
  async openPointInTime(keepAlive: string): Promise<string> {
    return (await this.client.openPointInTime({ index: this.alias, keep_alive: keepAlive })).id;
  }

  /** Frees a point in time's search contexts now, rather than when its keep-alive ends; one already gone is closed. */
  async closePointInTime(id: string): Promise<void> {
    await this.client.closePointInTime({ id }, { ignore: [404] });
  }
}
