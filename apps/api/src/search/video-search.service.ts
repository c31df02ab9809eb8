import { Client } from '@elastic/elasticsearch';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { JobQueues } from '@app/shared/queue/job-queues.service';
import { syncJobId } from '@app/shared/queue/jobs';
import { withTimeout } from '@app/shared/util/with-timeout';
import { ProblemException } from '@app/shared/http/problem';
import { SEARCH_CLIENT } from '@app/shared/search/search.client';
import { SearchIndexService } from '@app/shared/search/search-index.service';
import { buildSearchRequest } from '@app/shared/search/search-query.builder';
import { VideoRepository } from '@app/shared/video/video.repository';
import type { SearchItem, SearchPage, SearchQuery } from './search-query.schema';

@Injectable()
export class VideoSearchService {
  private readonly logger = new Logger(VideoSearchService.name);

  constructor(
    private readonly queues: JobQueues,
    @Inject(SEARCH_CLIENT) private readonly client: Client,
    private readonly index: SearchIndexService,
    private readonly videos: VideoRepository,
  ) {}

  /**
   * Ranks in Elasticsearch, then answers from MySQL: every hit is checked against the rows in one
   * query, so a video that is not active never shows even while the index lags.
   */
  async search(query: SearchQuery): Promise<SearchPage> {
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
      });
    } catch (error) {
      if (SearchIndexService.isUnavailable(error)) throw ProblemException.unavailable('Search');
      throw error;
    }
    // filter_path drops `hits.hits` altogether when nothing matched.
    const hits = response.hits.hits ?? [];
    const rows = new Map(
      (await this.videos.findActiveByIds(hits.map((hit) => hit._id!))).map((row) => [row.id, row]),
    );
    this.repairStale(hits.map((hit) => hit._id!).filter((id) => !rows.has(id)));
    const items = hits.flatMap((hit): SearchItem[] => {
      const row = rows.get(hit._id!);
      if (!row) return [];
      return [
        {
          id: row.id,
          title: row.title,
          description: row.description,
          authorId: row.authorId,
          publishedAt: row.publishedAt ? row.publishedAt.toISOString() : null,
          tags: row.tags,
          score: hit._score ?? 0,
        },
      ];
    });
    const totalHits = response.hits.total;
    const total = typeof totalHits === 'number' ? totalHits : (totalHits?.value ?? 0);
    return { items, page: query.page, limit: query.limit, total, totalPages: Math.ceil(total / query.limit) };
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
