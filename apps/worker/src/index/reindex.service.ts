import { Injectable, Logger } from '@nestjs/common';
import type { VideoEntity } from '@app/shared/video/video.entity';
import { VideoRepository } from '@app/shared/video/video.repository';
import { IndexAdmin } from '@app/shared/search/index-admin.service';
import { IndexWriter } from '@app/shared/search/index-writer.service';

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
/**
 * Rows read from MySQL at a time. Bulk bodies are cut by size (`IndexWriter.indexAll`); a
 * small read keeps what a reindex holds small, and V8 lets the heap grow to a multiple of that.
 */
export const REINDEX_BATCH = 500;

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
    private readonly admin: IndexAdmin,
    private readonly writer: IndexWriter,
  ) {}

  async rebuild(
    options: { batchSize?: number; onProgress?: (p: ReindexProgress) => void | Promise<void> } = {},
  ): Promise<ReindexResult> {
    const started = performance.now();
    const batchSize = options.batchSize ?? REINDEX_BATCH;
    const index = this.admin.newIndexName();
    const previous = await this.admin.aliasTargets();
    const loadStart = new Date(Date.now() - CLOCK_MARGIN_MS);

    await this.admin.createIndex(index, { loading: true });
    let documents = 0;
    try {
      // MySQL reads the next rows while Elasticsearch writes the last bulks (`indexAll`).
      const counted = async function* (batches: AsyncIterable<VideoEntity[]>) {
        for await (const rows of batches) {
          yield rows;
          documents += rows.length;
          await options.onProgress?.({ documents });
        }
      };
      await this.writer.indexAll(counted(this.videos.rowBatches(batchSize)), index);
      const swapStart = new Date(Date.now() - CLOCK_MARGIN_MS);
      let caughtUp = await this.catchUp(index, loadStart, batchSize);
      await this.admin.finishLoading(index);
      await this.admin.swapAlias(index, previous);
      // Writes that reached the old index between the first catch-up and the swap.
      caughtUp += await this.catchUp(index, swapStart, batchSize);
      for (const old of previous) await this.admin.deleteIndex(old);
      const result = { index, previous, documents, caughtUp, seconds: (performance.now() - started) / 1000 };
      this.logger.log(result, 'reindex done');
      return result;
    } catch (error) {
      // The alias still points at the old index: searches never noticed. Drop the half-built one.
      if (!(await this.admin.aliasTargets()).includes(index)) await this.admin.deleteIndex(index);
      throw error;
    }
  }

  /** Rewrites rows changed since `since` and removes videos purged since then. */
  private async catchUp(index: string, since: Date, batchSize: number): Promise<number> {
    const { indexed, stale } = await this.writer.indexAll(this.videos.rowBatches(batchSize, since), index);
    const count = indexed + stale;
    const purged = await this.videos.purgedSince(since);
    for (let i = 0; i < purged.length; i += batchSize) {
      await this.writer.deleteDocuments(purged.slice(i, i + batchSize), index);
    }
    return count + purged.length;
  }
}
