import type { Client } from '@elastic/elasticsearch';
import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { SEARCH_CLIENT } from './search.client';
import {
  INDEX_DEFINITION_VERSION,
  videoIndexMappings,
  videoIndexSettingsFor,
  type IndexShape,
  type VideoIndexMeta,
} from './video-index.definition';

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
/** How often a reindex or an expunge asks whether its merge is done. */
const MERGE_POLL_MS = 2_000;

/**
 * The index behind the alias was built from an older definition than this build's (or from one
 * that did not record its version): its fields are not the ones this build queries, so searches
 * would find nothing, or fail.
 */
export class OutdatedIndexDefinition extends Error {
  /** What is wrong and what to do, naming no host or index: readiness shows it publicly. */
  readonly reason: string;

  constructor(
    readonly index: string,
    readonly found: number | undefined,
  ) {
    const held = found === undefined ? 'no definition version' : `definition version ${found}`;
    const reason =
      `the search index holds ${held}, older than this build's ${INDEX_DEFINITION_VERSION}: ` +
      'run `npm run cli -- reindex`';
    super(`${index}: ${reason}`);
    this.reason = reason;
  }
}

/**
 * The indices of the alias and their lifecycle: creating one of the definition's shape and
 * version, loading it, pointing the alias at it, its replicas, and whether the live one is of
 * this build's definition. Writes are `IndexWriter`'s, reads the `IndexInventory`'s and the API's
 * search engine's.
 */
@Injectable()
export class IndexAdmin {
  readonly alias: string;
  /** ELASTICSEARCH_SHARDS and ELASTICSEARCH_REPLICAS: the shape of every index created here. */
  readonly shape: IndexShape;

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
   * Throws `OutdatedIndexDefinition` when an index behind the alias records an older definition
   * version than this build's, or none (an index built before versions were recorded). No alias
   * yet is no verdict: the first setup creates it at this build's version.
   */
  async checkDefinition(): Promise<void> {
    // One request, however many indices the alias names; a missing alias answers nothing.
    const found = await this.client.indices.getMapping({
      index: this.alias,
      ignore_unavailable: true,
      allow_no_indices: true,
    });
    for (const [index, { mappings }] of Object.entries(found)) {
      const version = (mappings._meta as Partial<VideoIndexMeta> | undefined)?.definitionVersion;
      if (typeof version !== 'number' || version < INDEX_DEFINITION_VERSION)
        throw new OutdatedIndexDefinition(index, typeof version === 'number' ? version : undefined);
    }
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
   * load left more than `MERGED_ENOUGH`. A big load leaves dozens of segments, which every
   * search visits one by one (its words looked up, its posting lists opened), and which the merge
   * policy would otherwise merge while the index already serves searches (docs/benchmarks.md,
   * fresh against live). Before the replicas: they copy the merged segments.
   */
  private async mergeSegments(index: string): Promise<void> {
    // Refreshed, the load's segments are counted; loading turned the refresh off.
    await this.client.indices.refresh({ index });
    const stats = await this.client.indices.stats({ index, metric: ['store', 'segments'] });
    const shardSegments = (stats._all.primaries?.segments?.count ?? 0) / this.shape.shards;
    if (shardSegments <= MERGED_ENOUGH) return;
    const shardBytes = (stats._all.primaries?.store?.size_in_bytes ?? 0) / this.shape.shards;
    await this.forceMerge(index, {
      max_num_segments: Math.max(1, Math.ceil(shardBytes / MAX_SEGMENT_BYTES)),
    });
  }

  /**
   * Rewrites every segment of the indices behind the alias that holds deleted documents, without
   * them: Lucene keeps a deleted (or replaced) document's text in its segment until a merge drops
   * it, so an erased video's words would otherwise stay on disk (docs/contract.md §10.4). A document
   * deleted in the last seconds may outlive one run (Elasticsearch keeps recent deletions for its
   * copies' history until its retention leases move past them); the next run takes it.
   * Returns how many deleted documents the indices held before and after, replicas included.
   */
  async expungeDeletes(): Promise<{ indices: string[]; deletedBefore: number; deletedAfter: number }> {
    const indices = await this.aliasTargets();
    if (indices.length === 0) return { indices, deletedBefore: 0, deletedAfter: 0 };
    // By default a segment with fewer than a tenth of its documents deleted is left as it is.
    await this.client.indices.putSettings({
      index: indices,
      settings: { 'index.merge.policy.expunge_deletes_allowed': 0 },
    });
    const deletedBefore = await this.deletedDocuments(indices);
    if (deletedBefore > 0) await this.forceMerge(indices.join(','), { only_expunge_deletes: true });
    return { indices, deletedBefore, deletedAfter: await this.deletedDocuments(indices) };
  }

  /** Deleted documents still in the indices' segments, every copy counted (each merges on its own). */
  async deletedDocuments(indices: string[] = [this.alias]): Promise<number> {
    const stats = await this.client.indices.stats({ index: indices, metric: ['docs'] });
    return stats._all.total?.docs?.deleted ?? 0;
  }

  /** A force merge run as a task and polled, so no HTTP request stays open for minutes. */
  private async forceMerge(
    index: string,
    options: { max_num_segments: number } | { only_expunge_deletes: true },
  ): Promise<void> {
    const { task } = await this.client.indices.forcemerge({ index, ...options, wait_for_completion: false });
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

  async refresh(index: string = this.alias): Promise<void> {
    await this.client.indices.refresh({ index });
  }
}
