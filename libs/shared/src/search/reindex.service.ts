import { Injectable, Logger } from '@nestjs/common';
import { VideoRepository } from '../video/video.repository';
import { SearchIndexService } from './search-index.service';

export interface ReindexProgress {
  documents: number;
}

export interface ReindexResult {
  index: string;
  previous: string[];
  documents: number;
  caughtUp: number;
  seconds: number;
}

/** Clocks of the processes that write rows may differ a little: catch-up looks back this much further. */
const CLOCK_MARGIN_MS = 60_000;
const BULKS_IN_FLIGHT = 2;

/**
 * Full rebuild from MySQL with no downtime: load a new index while searches keep using the old
 * one, catch up with what changed meanwhile, swap the alias atomically, catch up once more, then
 * drop the old index. External versions make every catch-up write idempotent.
 */
@Injectable()
export class ReindexService {
  private readonly logger = new Logger(ReindexService.name);

  constructor(
    private readonly videos: VideoRepository,
    private readonly search: SearchIndexService,
  ) {}

  async rebuild(
    options: { batchSize?: number; onProgress?: (p: ReindexProgress) => void | Promise<void> } = {},
  ): Promise<ReindexResult> {
    const started = performance.now();
    const batchSize = options.batchSize ?? 2_000;
    const index = this.search.newIndexName();
    const previous = await this.search.aliasTargets();
    const loadStart = new Date(Date.now() - CLOCK_MARGIN_MS);

    await this.search.createIndex(index, { loading: true });
    let documents = 0;
    try {
      // Keep two bulk requests in flight while the next batch is read: MySQL, Node and Elasticsearch all busy.
      const inFlight = new Set<Promise<unknown>>();
      for await (const rows of this.videos.rowBatches(batchSize)) {
        if (inFlight.size >= BULKS_IN_FLIGHT) await Promise.race(inFlight);
        const bulk: Promise<unknown> = this.search
          .indexVideos(rows, index)
          .finally(() => inFlight.delete(bulk));
        inFlight.add(bulk);
        documents += rows.length;
        await options.onProgress?.({ documents });
      }
      await Promise.all(inFlight);
      const swapStart = new Date(Date.now() - CLOCK_MARGIN_MS);
      let caughtUp = await this.catchUp(index, loadStart, batchSize);
      await this.search.finishLoading(index);
      await this.search.swapAlias(index, previous);
      // Writes that reached the old index between the first catch-up and the swap.
      caughtUp += await this.catchUp(index, swapStart, batchSize);
      for (const old of previous) await this.search.deleteIndex(old);
      const result = { index, previous, documents, caughtUp, seconds: (performance.now() - started) / 1000 };
      this.logger.log(result, 'reindex done');
      return result;
    } catch (error) {
      // The alias still points at the old index: searches never noticed. Drop the half-built one.
      if (!(await this.search.aliasTargets()).includes(index)) await this.search.deleteIndex(index);
      throw error;
    }
  }

  /** Rewrites rows changed since `since` and removes videos purged since then. */
  private async catchUp(index: string, since: Date, batchSize: number): Promise<number> {
    let count = 0;
    for await (const rows of this.videos.rowBatches(batchSize, since)) {
      await this.search.indexVideos(rows, index);
      count += rows.length;
    }
    const purged = await this.videos.purgedSince(since);
    for (let i = 0; i < purged.length; i += batchSize) {
      await this.search.deleteDocuments(purged.slice(i, i + batchSize), index);
    }
    return count + purged.length;
  }
}
