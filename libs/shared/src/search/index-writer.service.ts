import type { Client, estypes } from '@elastic/elasticsearch';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { CoalescingBatcher } from '../util/coalescing-batcher';
import { SEARCH_CLIENT } from './search.client';
import { toVideoDocument, type VersionedVideo } from './video-document';
import type { VideoDocument } from './video-index.definition';

/** A bulk load's body size: large enough that a request's overhead does not count, small enough to hold two. */
const BULK_BYTES = 2 * 2 ** 20;
/** Bulk requests of a load in flight at once: Node fills the next body while Elasticsearch writes. */
const BULKS_IN_FLIGHT = 2;

/**
 * A video's bulk write: its document at the row's version, external, so an older write arriving
 * late never overwrites a newer one (Elasticsearch answers 409 to it).
 */
function versionedWrite(video: VersionedVideo, index: string): [BulkIndexAction, VideoDocument] {
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
 * Every write into the index: videos' documents at their rows' versions, and their removal.
 * Through the alias unless an index is named (a reindex loads its new index by name).
 */
@Injectable()
export class IndexWriter {
  private readonly alias: string;
  /** Concurrent purges share bulk requests for their document deletions. */
  private readonly deletions = new CoalescingBatcher<string>((ids) => this.deleteBatch(ids));
  /** Concurrent commands share bulk requests for their documents' writes. */
  private readonly writes = new CoalescingBatcher<VersionedVideo>(async (videos) =>
    (await this.writeBatch(videos)).map((outcome) => (outcome instanceof Error ? outcome : undefined)),
  );

  constructor(
    @Inject(SEARCH_CLIENT) private readonly client: Client,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.alias = config.ELASTICSEARCH_INDEX;
  }

  /**
   * Writes videos with external versioning from the row's version, so an older write arriving
   * late never overwrites a newer one.
   */
  async indexVideos(videos: VersionedVideo[], index: string = this.alias): Promise<BulkOutcome> {
    if (videos.length === 0) return { indexed: 0, stale: 0 };
    let indexed = 0;
    let stale = 0;
    const failures: string[] = [];
    for (const outcome of await this.writeBatch(videos, index)) {
      if (outcome === 'indexed') indexed += 1;
      else if (outcome === 'stale') stale += 1;
      else failures.push(outcome.message);
    }
    if (failures.length > 0) throw indexingFailed(failures);
    return { indexed, stale };
  }

  /**
   * Writes one video's document as `indexVideos` does (a newer version already indexed is not an
   * error). Calls made while another is in flight go out together in one bulk request, so
   * concurrent commands share the engine's per-request work.
   */
  indexVideo(video: VersionedVideo): Promise<void> {
    return this.writes.add(video);
  }

  /** One bulk request of versioned writes; answers per document. */
  private async writeBatch(
    videos: VersionedVideo[],
    index: string = this.alias,
  ): Promise<('indexed' | 'stale' | Error)[]> {
    // Through the alias, `require_alias` makes a missing alias an error: otherwise Elasticsearch would
    // create a concrete index under the alias's name and every later `ensureAlias` would fail.
    const response = await this.client.bulk({
      operations: videos.flatMap((video) => versionedWrite(video, index)),
      refresh: false,
      require_alias: index === this.alias,
    });
    return response.items.map((item) => {
      const result = item.index;
      if (!result?.error) return 'indexed';
      if (result.status === 409) return 'stale';
      return new Error(`${result._id}: ${result.error.type} ${result.error.reason ?? ''}`);
    });
  }

  /**
   * Writes every video of `batches` (external versions, as `indexVideos`) through the client's bulk
   * helper: each document is serialized as soon as it is built, bulk bodies are cut at
   * `BULK_BYTES`, and at most `BULKS_IN_FLIGHT` are sent at once while the next is filled. What
   * is held at any moment is a few bodies of bytes, whatever the row count or the documents' size,
   * so a full reindex of a million videos keeps a flat memory (docs/benchmarks.md). A document
   * the index refuses (other than at a newer version) stops the load and is thrown.
   */
  async indexAll(
    batches: AsyncIterable<VersionedVideo[]> | Iterable<VersionedVideo[]>,
    index: string,
  ): Promise<BulkOutcome> {
    let stale = 0;
    const failures: string[] = [];
    const bulk = this.client.helpers.bulk<VersionedVideo>({
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

  /** Removes documents in one bulk request; ones already gone count as removed. */
  async deleteDocuments(ids: string[], index: string = this.alias): Promise<void> {
    if (ids.length === 0) return;
    const failures = (await this.deleteBatch(ids, index)).filter((error) => error !== undefined);
    if (failures.length > 0) {
      throw new Error(`Bulk deletion failed for ${failures.length} document(s): ${failures[0]!.message}`);
    }
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
}
