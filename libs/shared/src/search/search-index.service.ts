import { Client, errors } from '@elastic/elasticsearch';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import type { VideoEntity } from '../video/video.entity';
import { SEARCH_CLIENT } from './search.client';
import { toVideoDocument } from './video-document';
import { videoIndexMappings, videoIndexSettings } from './video-index.definition';

export interface BulkOutcome {
  indexed: number;
  /** Documents the index already held at a newer version: not an error, the newer write won. */
  stale: number;
}

/** Owns the versioned index behind the alias and every write into it. */
@Injectable()
export class SearchIndexService {
  readonly alias: string;

  constructor(
    @Inject(SEARCH_CLIENT) readonly client: Client,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.alias = config.ELASTICSEARCH_INDEX;
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

  async createIndex(name: string): Promise<void> {
    await this.client.indices.create({
      index: name,
      settings: videoIndexSettings,
      mappings: videoIndexMappings,
    });
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
    const operations = videos.flatMap((video) => [
      { index: { _index: index, _id: video.id, version: video.version, version_type: 'external' as const } },
      toVideoDocument(video),
    ]);
    const response = await this.client.bulk({ operations, refresh: false });
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
    if (failures.length > 0) {
      throw new Error(
        `Bulk indexing failed for ${failures.length} document(s): ${failures.slice(0, 3).join('; ')}`,
      );
    }
    return { indexed, stale };
  }

  /** Removes a video's document; one that is already gone counts as removed. */
  async deleteDocument(id: string): Promise<void> {
    await this.client.delete({ index: this.alias, id, refresh: false }, { ignore: [404] });
  }

  async refresh(): Promise<void> {
    await this.client.indices.refresh({ index: this.alias });
  }

  async count(): Promise<number> {
    const response = await this.client.count({ index: this.alias });
    return response.count;
  }

  static isUnavailable(error: unknown): boolean {
    return (
      error instanceof errors.ConnectionError ||
      error instanceof errors.TimeoutError ||
      error instanceof errors.NoLivingConnectionsError ||
      (error instanceof errors.ResponseError && (error.statusCode ?? 0) >= 500)
    );
  }
}
