import { Injectable, Logger } from '@nestjs/common';
import {
  IndexAdmin,
  OutdatedIndexDefinition,
  shardCountAdvice,
} from '@app/shared/search/index-admin.service';

/**
 * A worker that starts with a new ELASTICSEARCH_REPLICAS gives the live index that many replicas:
 * an operator who changes the variable and restarts expects it to take effect, and the replica
 * count is a dynamic setting. Shards cannot change in place, so a different ELASTICSEARCH_SHARDS
 * only gets a warning that names the reindex, and so does a live index of an older definition
 * than this build's (readiness refuses it too). The worker, not the API, does it: the worker owns
 * the index's lifecycle (reindexes, repairs).
 *
 * The worker runs it beside its start (`applyInBackground`), never before it: with Elasticsearch away the worker still has
 * deletions to run. Every reconcile (RECONCILE_INTERVAL_MS) applies it again, so a start that
 * found Elasticsearch away, or a count changed by hand, comes back to the configuration.
 */
@Injectable()
export class IndexShapeService {
  private readonly logger = new Logger('IndexShape');

  constructor(private readonly index: IndexAdmin) {}

  applyInBackground(): void {
    this.apply().catch((error: unknown) =>
      this.logger.warn(
        { err: String(error) },
        'index replica count not applied; the next reconcile applies it',
      ),
    );
  }

  async apply(): Promise<void> {
    const { shards } = this.index.shape;
    for (const report of await this.index.applyReplicas()) {
      if (report.previousReplicas !== undefined) {
        this.logger.log(
          { index: report.index, replicas: report.replicas, previousReplicas: report.previousReplicas },
          'index replica count changed to ELASTICSEARCH_REPLICAS',
        );
      }
      const advice = shardCountAdvice(report, shards);
      if (advice) {
        this.logger.warn({ index: report.index, shards: report.shards, configuredShards: shards }, advice);
      }
    }
    await this.warnIfOutdated();
  }

  /** A live index of an older definition: searches find nothing in it until a reindex. */
  private async warnIfOutdated(): Promise<void> {
    try {
      await this.index.checkDefinition();
    } catch (error) {
      if (!(error instanceof OutdatedIndexDefinition)) throw error;
      this.logger.warn({ index: error.index, definitionVersion: error.found ?? null }, error.reason);
    }
  }
}
