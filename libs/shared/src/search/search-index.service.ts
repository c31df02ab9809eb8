import { Client, errors, type estypes } from '@elastic/elasticsearch';
import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { CoalescingBatcher } from '../util/coalescing-batcher';
import type { VideoEntity } from '../video/video.entity';
import { promptRetryBackoff, SEARCH_CLIENT, SEARCH_CLIENT_RETRIES } from './search.client';
import { toVideoDocument } from './video-document';
import type { VideoDocument } from './video-index.definition';
import { videoIndexMappings, videoIndexSettingsFor, type IndexShape } from './video-index.definition';

/** One index behind the alias after `applyReplicas`. */
export interface IndexShapeReport {
  index: string;
  shards: number;
  replicas: number;
  /** Its replica count before, when `applyReplicas` changed it. */
  previousReplicas?: number;
}

/** What to do about an index whose shard count is not the configured one (a reindex), or undefined. */
export function shardCountAdvice(report: IndexShapeReport, configuredShards: number): string | undefined {
  if (report.shards === configuredShards) return undefined;
  return (
    `${report.index} has ${report.shards} shard(s), which differs from ELASTICSEARCH_SHARDS (${configuredShards}): ` +
    'run `npm run cli -- reindex` to rebuild it with the new count'
  );
}

/**
 * The largest segment a merge writes: Lucene's merge policy leaves a segment this big alone until
 * deletions make up much of it, so a force merge stops there too.
 */
const MAX_SEGMENT_BYTES = 5 * 2 ** 30;
/**
 * Segments per shard a load may leave unmerged: about what Lucene's merge policy keeps in one tier
 * (`segments_per_tier`). The sample's 21,713 videos load into 2, where a merge would cost a fifth
 * of the reindex for nothing; a million into 43.
 */
const MERGED_ENOUGH = 10;
/** How often a reindex asks whether its merge is done. */
const MERGE_POLL_MS = 2_000;
/** A bulk load's body size: large enough that a request's overhead does not count, small enough to hold two. */
const BULK_BYTES = 2 * 2 ** 20;
/** Bulk requests of a load in flight at once: Node fills the next body while Elasticsearch writes. */
const BULKS_IN_FLIGHT = 2;

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
 * A video's bulk write: its document at the row's version, external, so an older write arriving
 * late never overwrites a newer one (Elasticsearch answers 409 to it).
 */
function versionedWrite(video: VideoEntity, index: string): [BulkIndexAction, VideoDocument] {
  return [
    { index: { _index: index, _id: video.id, version: video.version, version_type: 'external' } },
    toVideoDocument(video),
  ];
}

type BulkIndexAction = { index: estypes.BulkIndexOperation };

/** The documents a bulk write failed for (a few named), as one error. */
function indexingFailed(failures: string[]): Error {
  return new Error(
    `Bulk indexing failed for ${failures.length} document(s): ${failures.slice(0, 3).join('; ')}`,
  );
}

export interface BulkOutcome {
  indexed: number;
  /** Documents the index already held at a newer version: not an error, the newer write won. */
  stale: number;
}

/**
 * The one owner of Elasticsearch: the versioned index behind the alias, every write into it and
 * every read from it. Nothing else holds the client.
 */
@Injectable()
export class SearchIndexService {
  readonly alias: string;
  /** ELASTICSEARCH_SHARDS and ELASTICSEARCH_REPLICAS: the shape of every index created here. */
  readonly shape: IndexShape;
  /** Concurrent purges share bulk requests for their document deletions. */
  private readonly deletions = new CoalescingBatcher<string>((ids) => this.deleteBatch(ids));

  constructor(
    @Inject(SEARCH_CLIENT) private readonly client: Client,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.alias = config.ELASTICSEARCH_INDEX;
    this.shape = { shards: config.ELASTICSEARCH_SHARDS, replicas: config.ELASTICSEARCH_REPLICAS };
  }

  /** Readiness: the cluster answers and is at least yellow. `GET /` does not exist on the test distribution. */
  async ping(): Promise<void> {
    const health = await this.client.cluster.health({ timeout: '3s' }, { requestTimeout: 3_000 });
    if (health.status === 'red') throw new Error('Elasticsearch cluster status is red');
  }

  newIndexName(): string {
    return `${this.alias}_${new Date()
      .toISOString()
      .replace(/[-:.TZ]/g, '')
      .slice(0, 17)}`;
  }

  /**
   * Creates a versioned index of the configured shape; `loading` turns refresh off and replicas
   * off for a bulk load (each document is then written once, not once per copy; see `finishLoading`).
   */
  async createIndex(name: string, { loading = false } = {}): Promise<void> {
    await this.client.indices.create({
      index: name,
      settings: {
        ...videoIndexSettingsFor(this.shape),
        ...(loading ? { refresh_interval: '-1', number_of_replicas: 0 } : {}),
      },
      mappings: videoIndexMappings,
    });
  }

  /**
   * Merges a bulk-loaded index into as few segments as it needs, restores the refresh and the
   * configured replicas, and makes it all visible. When the cluster has nodes enough for the
   * replicas, waits (up to 10 minutes) until they are copied, so the alias never moves to an index
   * that one lost node would take away.
   */
  async finishLoading(index: string): Promise<void> {
    await this.mergeSegments(index);
    await this.client.indices.putSettings({
      index,
      settings: { refresh_interval: '1s', number_of_replicas: this.shape.replicas },
    });
    await this.client.indices.refresh({ index });
    const { number_of_data_nodes: dataNodes } = await this.client.cluster.health();
    if (this.shape.replicas > 0 && dataNodes > this.shape.replicas) {
      await this.client.cluster.health(
        { index, wait_for_status: 'green', timeout: '10m' },
        { requestTimeout: 660_000, ignore: [408] },
      );
    }
  }

  /**
   * Merges each shard of a freshly loaded index into one segment per `MAX_SEGMENT_BYTES`, when the
   * load left more than `MERGED_ENOUGH`. A big load leaves dozens of segments (43 at a million
   * videos), which every search visits one by one (its words looked up, its posting lists opened),
   * and which the merge policy would otherwise merge while the index already serves searches.
   * Merged, the API's engine requests at a million videos cost less than the plain query's
   * (docs/benchmarking.md). Before the replicas: they copy the merged segments. Runs as a task, so
   * no HTTP request stays open for minutes.
   */
  private async mergeSegments(index: string): Promise<void> {
    // Refreshed, the load's segments are counted; loading turned the refresh off.
    await this.client.indices.refresh({ index });
    const stats = await this.client.indices.stats({ index, metric: ['store', 'segments'] });
    const shardSegments = (stats._all.primaries?.segments?.count ?? 0) / this.shape.shards;
    if (shardSegments <= MERGED_ENOUGH) return;
    const shardBytes = (stats._all.primaries?.store?.size_in_bytes ?? 0) / this.shape.shards;
    const { task } = await this.client.indices.forcemerge({
      index,
      max_num_segments: Math.max(1, Math.ceil(shardBytes / MAX_SEGMENT_BYTES)),
      wait_for_completion: false,
    });
    if (task === undefined) return;
    for (;;) {
      const { completed, error } = await this.client.tasks.get({ task_id: String(task) });
      if (error) throw new Error(`Merging ${index} failed: ${error.type} ${error.reason ?? ''}`);
      if (completed) return;
      await sleep(MERGE_POLL_MS);
    }
  }

  /**
   * Gives the indices behind the alias the configured replica count: a dynamic setting, applied
   * to the live index without a reindex. Shards are fixed when an index is created, so a shard
   * count that differs from the configured one is only reported (`cli reindex` changes it).
   */
  async applyReplicas(): Promise<IndexShapeReport[]> {
    const targets = await this.aliasTargets();
    if (targets.length === 0) return [];
    const found = await this.client.indices.getSettings({
      index: targets,
      name: ['index.number_of_shards', 'index.number_of_replicas'],
      flat_settings: true,
    });
    const reports: IndexShapeReport[] = [];
    for (const [index, { settings }] of Object.entries(found)) {
      const flat = (settings ?? {}) as Record<string, string | undefined>;
      const report: IndexShapeReport = {
        index,
        shards: Number(flat['index.number_of_shards']),
        replicas: Number(flat['index.number_of_replicas']),
      };
      if (report.replicas !== this.shape.replicas) {
        await this.client.indices.putSettings({
          index,
          settings: { number_of_replicas: this.shape.replicas },
        });
        report.previousReplicas = report.replicas;
        report.replicas = this.shape.replicas;
      }
      reports.push(report);
    }
    return reports;
  }

  /** The indices the alias points at now. */
  async aliasTargets(): Promise<string[]> {
    if (!(await this.client.indices.existsAlias({ name: this.alias }))) return [];
    return Object.keys(await this.client.indices.getAlias({ name: this.alias }));
  }

  /** Points the alias at `index` and away from every other index in one atomic step. */
  async swapAlias(index: string, previous: string[]): Promise<void> {
    await this.client.indices.updateAliases({
      actions: [
        ...previous.map((old) => ({ remove: { index: old, alias: this.alias } })),
        { add: { index, alias: this.alias, is_write_index: true } },
      ],
    });
  }

  async deleteIndex(index: string): Promise<void> {
    await this.client.indices.delete({ index }, { ignore: [404] });
  }

  /** The stored version of each of these documents that exists. */
  async versions(ids: string[], index: string = this.alias): Promise<Map<string, number>> {
    const versions = new Map<string, number>();
    if (ids.length === 0) return versions;
    const response = await this.client.mget({ index, ids, _source: false });
    for (const doc of response.docs) {
      if ('found' in doc && doc.found && doc._version !== undefined) versions.set(doc._id, doc._version);
    }
    return versions;
  }

  /** Every document in the index with its version, in id order, in pages: memory stays flat at any size. */
  async *documentVersionBatches(
    batchSize = 1_000,
    index: string = this.alias,
  ): AsyncGenerator<Map<string, number>> {
    let after: string | undefined;
    for (;;) {
      const response = await this.client.search({
        index,
        size: batchSize,
        _source: false,
        version: true,
        sort: [{ id: { order: 'asc' } }],
        query: { match_all: {} },
        ...(after !== undefined ? { search_after: [after] } : {}),
      });
      const hits = response.hits.hits;
      if (hits.length === 0) return;
      yield new Map(hits.map((hit) => [hit._id!, hit._version ?? 0]));
      if (hits.length < batchSize) return;
      after = hits[hits.length - 1]!._id;
    }
  }

  /** Every document id in the index, in id order, in pages. */
  async *documentIdBatches(batchSize = 1_000, index: string = this.alias): AsyncGenerator<string[]> {
    for await (const batch of this.documentVersionBatches(batchSize, index)) yield [...batch.keys()];
  }

  /** Removes documents in one bulk request; ones already gone count as removed. */
  async deleteDocuments(ids: string[], index: string = this.alias): Promise<void> {
    if (ids.length === 0) return;
    const failures = (await this.deleteBatch(ids, index)).filter((error) => error !== undefined);
    if (failures.length > 0) {
      throw new Error(`Bulk deletion failed for ${failures.length} document(s): ${failures[0]!.message}`);
    }
  }

  /** Creates the first versioned index and points the alias at it, unless the alias already exists. */
  async ensureAlias(): Promise<void> {
    if (await this.client.indices.existsAlias({ name: this.alias })) return;
    const index = this.newIndexName();
    await this.createIndex(index);
    try {
      await this.client.indices.updateAliases({
        actions: [{ add: { index, alias: this.alias, is_write_index: true } }],
      });
    } catch (error) {
      // Another process created the alias first: keep theirs, drop ours.
      await this.client.indices.delete({ index }, { ignore: [404] });
      if (!(await this.client.indices.existsAlias({ name: this.alias }))) throw error;
    }
  }

  /**
   * Writes videos with external versioning from the row's version, so an older write arriving
   * late never overwrites a newer one.
   */
  async indexVideos(videos: VideoEntity[], index: string = this.alias): Promise<BulkOutcome> {
    if (videos.length === 0) return { indexed: 0, stale: 0 };
    const operations = videos.flatMap((video) => versionedWrite(video, index));
    // Through the alias, `require_alias` makes a missing alias an error: otherwise Elasticsearch would
    // create a concrete index under the alias's name and every later `ensureAlias` would fail.
    const response = await this.client.bulk({
      operations,
      refresh: false,
      require_alias: index === this.alias,
    });
    let indexed = 0;
    let stale = 0;
    const failures: string[] = [];
    for (const item of response.items) {
      const result = item.index;
      if (!result) continue;
      if (!result.error) indexed += 1;
      else if (result.status === 409) stale += 1;
      else failures.push(`${result._id}: ${result.error.type} ${result.error.reason ?? ''}`);
    }
    if (failures.length > 0) throw indexingFailed(failures);
    return { indexed, stale };
  }

  /**
   * Writes every video of `batches` (external versions, as `indexVideos`) through the client's bulk
   * helper: each document is serialized as soon as it is built, bulk bodies are cut at
   * `BULK_BYTES`, and at most `BULKS_IN_FLIGHT` are sent at once while the next is filled. What
   * is held at any moment is a few bodies of bytes, whatever the row count or the documents' size,
   * so a full reindex of a million videos keeps a flat memory (docs/benchmarking.md). A document
   * the index refuses (other than at a newer version) stops the load and is thrown.
   */
  async indexAll(
    batches: AsyncIterable<VideoEntity[]> | Iterable<VideoEntity[]>,
    index: string,
  ): Promise<BulkOutcome> {
    let stale = 0;
    const failures: string[] = [];
    const bulk = this.client.helpers.bulk<VideoEntity>({
      datasource: (async function* () {
        for await (const videos of batches) yield* videos;
      })(),
      onDocument: (video) => versionedWrite(video, index),
      onDrop: (dropped) => {
        if (dropped.status === 409) {
          stale += 1;
          return;
        }
        failures.push(`${dropped.document.id}: ${dropped.error?.type} ${dropped.error?.reason ?? ''}`);
        // Stops sending; the helper (a thenable returned by `abort`) is awaited below.
        void bulk.abort();
      },
      flushBytes: BULK_BYTES,
      concurrency: BULKS_IN_FLIGHT,
      // The answer per document is only read for its status: not its index, id, version or shards.
      filter_path: ['errors', 'items.*.status', 'items.*.error'],
      refresh: false,
      require_alias: index === this.alias,
    });
    const stats = await bulk;
    if (failures.length > 0) throw indexingFailed(failures);
    return { indexed: stats.successful, stale };
  }

  /**
   * Removes a video's document; one that is already gone counts as removed. Calls made while
   * another deletion is in flight go out together in one bulk request.
   */
  deleteDocument(id: string): Promise<void> {
    return this.deletions.add(id);
  }

  /** One bulk request of deletions; answers per document: `undefined` when gone, or its error. */
  private async deleteBatch(ids: string[], index: string = this.alias): Promise<(Error | undefined)[]> {
    const response = await this.client.bulk({
      operations: ids.map((id) => ({ delete: { _index: index, _id: id } })),
      refresh: false,
    });
    return response.items.map((item) => {
      const result = item.delete;
      // 404: the document is already gone, which is what was asked.
      if (!result?.error || result.status === 404) return undefined;
      return new Error(
        `Deleting document ${result._id ?? ''} failed: ${result.error.type} ${result.error.reason ?? ''}`,
      );
    });
  }

  /** Runs a search (built by `search-query.builder`) over the alias or a point in time. */
  search(request: estypes.SearchRequest): Promise<estypes.SearchResponse> {
    return this.client.search(request);
  }

  /**
   * Runs searches together, as one `_msearch`: one HTTP request for the API to send and for
   * Elasticsearch to parse and dispatch, where separate searches cost 0.4 ms more of its CPU per
   * search at a million videos (docs/benchmarking.md). `filterPath` is each answer's, as for one
   * search. A search that fails throws what it would have thrown alone (a `ResponseError` with its
   * status); when one fails in a way the cluster recovers from (502–504: a node lost, shards moving),
   * all are sent again, as the client retries a single search, up to its retries.
   */
  async searchTogether(
    requests: estypes.SearchRequest[],
    filterPath: string[],
  ): Promise<estypes.SearchResponse[]> {
    const searches = requests.flatMap((request) => {
      const { index, request_cache, allow_partial_search_results, ...body } = request;
      const header: estypes.MsearchMultisearchHeader = { index, request_cache, allow_partial_search_results };
      return [header, body];
    });
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

  /** A video's document as the index holds it, or null. */
  async document(id: string): Promise<VideoDocument | null> {
    const found = await this.client.get<VideoDocument>({ index: this.alias, id }, { ignore: [404] });
    return found.found ? (found._source ?? null) : null;
  }

  /**
   * Every versioned index of this alias (`newIndexName`: the alias, `_`, 17 digits), whether the
   * alias points at it or not. The wildcard alone would also name another alias's indices when that
   * alias starts with this one and `_` (`videos_test_…` for `videos`).
   */
  async versionedIndices(): Promise<string[]> {
    const names = Object.keys(
      await this.client.indices.get({ index: `${this.alias}_*`, allow_no_indices: true }),
    );
    return names.filter((name) => /^\d{17}$/.test(name.slice(this.alias.length + 1)));
  }

  async indexExists(index: string): Promise<boolean> {
    return this.client.indices.exists({ index });
  }

  /** Closes the connections (the processes do so at shutdown). */
  close(): Promise<void> {
    return this.client.close();
  }

  async refresh(index: string = this.alias): Promise<void> {
    await this.client.indices.refresh({ index });
  }

  /** A point in time that expired or lost a shard copy: its cursor cannot go on. */
  static isLostPointInTime(error: unknown): boolean {
    return (
      error instanceof errors.ResponseError &&
      /search_context_missing_exception|No search context found/.test(JSON.stringify(error.body ?? ''))
    );
  }

  /** The index cannot answer now: unreachable, overloaded, or (before the first setup) not there at all. */
  static isUnavailable(error: unknown): boolean {
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
}
