import { Injectable, Logger } from '@nestjs/common';
import { VideoRepository } from '../video/video.repository';
import { SearchIndexService } from './search-index.service';

export interface ReconcileResult {
  checked: number;
  missing: number;
  stale: number;
  removed: number;
}

/**
 * Repairs drift between MySQL (the truth) and the index: documents that are missing or older than
 * their row are rewritten; documents whose row no longer exists are removed. Walks both sides in
 * batches, so it runs at any size.
 */
@Injectable()
export class IndexReconciler {
  private readonly logger = new Logger(IndexReconciler.name);

  constructor(
    private readonly videos: VideoRepository,
    private readonly search: SearchIndexService,
  ) {}

  async reconcile(batchSize = 1_000): Promise<ReconcileResult> {
    const result: ReconcileResult = { checked: 0, missing: 0, stale: 0, removed: 0 };
    for await (const rows of this.videos.rowBatches(batchSize)) {
      const versions = await this.search.versions(rows.map((row) => row.id));
      const repair = rows.filter((row) => {
        const indexed = versions.get(row.id);
        if (indexed === undefined) result.missing += 1;
        else if (indexed < row.version) result.stale += 1;
        return indexed === undefined || indexed < row.version;
      });
      await this.search.indexVideos(repair);
      result.checked += rows.length;
    }
    for await (const ids of this.search.documentIdBatches(batchSize)) {
      const existing = await this.videos.existingIds(ids);
      const orphans = ids.filter((id) => !existing.has(id));
      await this.search.deleteDocuments(orphans);
      result.removed += orphans.length;
    }
    if (result.missing + result.stale + result.removed > 0) this.logger.log(result, 'index drift repaired');
    return result;
  }
}
