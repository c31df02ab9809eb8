import type { Client } from '@elastic/elasticsearch';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { SEARCH_CLIENT } from './search.client';
import { VIDEO_FIELDS, type VideoDocument } from './video-index.definition';

/**
 * What the index holds, document by document: which ids at which versions, and one document as
 * stored. The reconciler, the reindex's checks and the tests read it; searching is the API's
 * engine's (apps/api/src/search/engine).
 */
@Injectable()
export class IndexInventory {
  private readonly alias: string;

  constructor(
    @Inject(SEARCH_CLIENT) private readonly client: Client,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.alias = config.ELASTICSEARCH_INDEX;
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
        sort: [{ [VIDEO_FIELDS.id]: { order: 'asc' } }],
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

  /** A video's document as the index holds it, or null. */
  async document(id: string): Promise<VideoDocument | null> {
    const found = await this.client.get<VideoDocument>({ index: this.alias, id }, { ignore: [404] });
    return found.found ? (found._source ?? null) : null;
  }
}
