import { Client } from '@elastic/elasticsearch';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG } from '@app/shared/config/config.module';
import type { AppConfig } from '@app/shared/config/config.schema';
import { MetricsService } from '@app/shared/metrics/metrics.service';
import { JobQueues } from '@app/shared/queue/job-queues.service';
import { syncJobId } from '@app/shared/queue/jobs';
import { withTimeout } from '@app/shared/util/with-timeout';
import { ProblemException } from '@app/shared/http/problem';
import { SEARCH_CLIENT } from '@app/shared/search/search.client';
import { SearchIndexService } from '@app/shared/search/search-index.service';
import { buildSearchRequest } from '@app/shared/search/search-query.builder';
import { VideoRepository } from '@app/shared/video/video.repository';
import type { SearchQuery } from './search-query.schema';
import { ItemHeadCache, renderSearchPage, type ItemHead } from './search-page.renderer';

@Injectable()
export class VideoSearchService {
  private readonly logger = new Logger(VideoSearchService.name);

  private readonly heads: ItemHeadCache;

  constructor(
    private readonly queues: JobQueues,
    @Inject(SEARCH_CLIENT) private readonly client: Client,
    private readonly index: SearchIndexService,
    private readonly videos: VideoRepository,
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.heads = new ItemHeadCache(config.SEARCH_ITEM_CACHE_MB * 2 ** 20);
  }

  /**
   * Ranks in Elasticsearch, then answers from MySQL: every hit is checked against the rows in one
   * query, so a video that is not active never shows even while the index lags. That query reads
   * only the versions; a video's fields are read (and rendered) again only when its version is not
   * among the rendered items. Returns the answer's JSON (docs/contract.md §7).
   */
  async search(query: SearchQuery): Promise<Buffer> {
    const request = buildSearchRequest(
      {
        q: query.q,
        authorId: query.authorId,
        from: query.dateFrom,
        to: query.dateTo,
        page: query.page,
        limit: query.limit,
      },
      this.index.alias,
    );
    let response;
    try {
      // Only ids, scores and the total travel back: the fields come from MySQL.
      response = await this.client.search({
        ...request,
        filter_path: ['hits.total', 'hits.hits._id', 'hits.hits._score'],
        // A shard that fails (its node lost between the query and the fetch) would otherwise leave
        // a 200 that silently lacks that shard's hits: the search fails instead, is retried on
        // another node, and at worst answers 503.
        allow_partial_search_results: false,
      });
    } catch (error) {
      if (SearchIndexService.isUnavailable(error)) throw ProblemException.unavailable('Search');
      throw error;
    }
    // filter_path drops `hits.hits` altogether when nothing matched.
    const hits = response.hits.hits ?? [];
    const ids = hits.map((hit) => hit._id!);
    const versions = await this.videos.findActiveVersions(ids);
    this.repairStale(ids.filter((id) => !versions.has(id)));
    const heads = new Map<string, ItemHead>();
    const unrendered: string[] = [];
    for (const [id, version] of versions) {
      const head = this.heads.get(id, version);
      if (head) heads.set(id, head);
      else unrendered.push(id);
    }
    this.metrics.searchItemCache.inc({ result: 'hit' }, heads.size);
    this.metrics.searchItemCache.inc({ result: 'miss' }, unrendered.length);
    // A video that left `active` between the two reads is left out, like any other inactive hit.
    for (const video of await this.videos.findActiveByIds(unrendered)) {
      heads.set(video.id, this.heads.render(video));
    }

    const items = hits.flatMap((hit) => {
      const head = heads.get(hit._id!);
      return head ? [{ head, score: hit._score ?? 0 }] : [];
    });
    const totalHits = response.hits.total;
    const indexed = typeof totalHits === 'number' ? totalHits : (totalHits?.value ?? 0);
    // The hits of this page that MySQL dropped are not counted either (those of other pages are,
    // until the index catches up: counting them would mean checking every match).
    const total = Math.max(0, indexed - (hits.length - items.length));
    return renderSearchPage(items, { page: query.page, limit: query.limit, total });
  }

  /** The index showed videos MySQL says are not active: have the worker rewrite their documents. */
  private repairStale(ids: string[]): void {
    for (const videoId of ids) {
      const queued = this.queues.add(
        'sync-video',
        { videoId },
        { jobId: syncJobId(videoId, 'stale'), removeOnComplete: true, removeOnFail: true },
      );
      // Redis may be away: the answer does not wait, and the reconciler repairs the document anyway.
      withTimeout(queued, 2_000, 'queue sync-video').catch((error: unknown) =>
        this.logger.warn(`index repair for ${videoId} not queued: ${String(error)}`),
      );
    }
  }
}
