import { Injectable, Logger } from '@nestjs/common';
import { SearchIndexService, shardCountAdvice } from '@app/shared/search/search-index.service';

/**
 * A worker that starts with a new ELASTICSEARCH_REPLICAS gives the live index that many replicas:
 * an operator who changes the variable and restarts expects it to take effect, and the replica
 * count is a dynamic setting. Shards cannot change in place, so a different ELASTICSEARCH_SHARDS
 * only gets a warning that names the reindex. The worker, not the API, does it: the worker owns
 * the index's lifecycle (reindexes, repairs).
 *
 * The worker runs it beside its start (`applyInBackground`), never before it: with Elasticsearch away the worker still has
 * deletions to run. Every reconcile (RECONCILE_INTERVAL_MS) applies it again, so a start that
 * found Elasticsearch away, or a count changed by hand, comes back to the configuration.
 */
@Injectable()
export class IndexShapeService {
  private readonly logger = new Logger('IndexShape');

  constructor(private readonly search: SearchIndexService) {}

  applyInBackground(): void {
    this.apply().catch((error: unknown) =>
      this.logger.warn(
        { err: String(error) },
        'index replica count not applied; the next reconcile applies it',
      ),
    );
  }

  async apply(): Promise<void> {
    const { shards } = this.search.shape;
    for (const report of await this.search.applyReplicas()) {
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
  }
}
