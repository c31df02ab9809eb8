import { Injectable, Logger } from '@nestjs/common';
import { DeletionLedger } from '@app/shared/video/deletion-ledger.service';
import type { VideoEntity } from '@app/shared/video/video.entity';
import { VideoRepository } from '@app/shared/video/video.repository';
import { IndexInventory } from '@app/shared/search/index-inventory.service';
import { IndexWriter } from '@app/shared/search/index-writer.service';

export interface ReconcileResult {
  /** Deletions MySQL had forgotten (restored from a backup), re-applied from the ledger first. */
  replayed: number;
  checked: number;
  missing: number;
  stale: number;
  /** Documents at a newer version than their row (MySQL restored from an earlier backup). */
  ahead: number;
  removed: number;
}

/**
 * Repairs drift between MySQL (the truth) and the index: documents that are missing or older than
 * their row are rewritten; documents whose row no longer exists are removed. Walks both sides in
 * batches, so it runs at any size.
 *
 * Before either walk, deletions MySQL has forgotten (restored from an earlier backup) are re-applied
 * from the deletion ledger, so no row a backup brought back is written into the index.
 *
 * A document *ahead* of its row (MySQL restored from an earlier backup: the index saw versions the
 * restored rows have not reached) is rewritten from the row too, and the index still never sees a
 * version go backwards: the row's version is first moved past the document's, then written. Until
 * then a search drops such a hit (its versions disagree), so the video would stay hidden.
 */
@Injectable()
export class IndexReconciler {
  private readonly logger = new Logger(IndexReconciler.name);

  constructor(
    private readonly videos: VideoRepository,
    private readonly inventory: IndexInventory,
    private readonly writer: IndexWriter,
    private readonly ledger: DeletionLedger,
  ) {}

  async reconcile(batchSize = 1_000): Promise<ReconcileResult> {
    // First the deletions: a row a backup brought back must not be written into the index.
    const replayed = await this.ledger.replay();
    const result: ReconcileResult = { replayed, checked: 0, missing: 0, stale: 0, ahead: 0, removed: 0 };
    for await (const rows of this.videos.rowBatches(batchSize)) {
      const versions = await this.inventory.versions(rows.map((row) => row.id));
      const repair = rows.filter((row) => {
        const indexed = versions.get(row.id);
        if (indexed === undefined) result.missing += 1;
        else if (indexed < row.version) result.stale += 1;
        return indexed === undefined || indexed < row.version;
      });
      const ahead = rows.filter((row) => (versions.get(row.id) ?? 0) > row.version);
      result.ahead += ahead.length;
      await this.writer.indexVideos([...repair, ...(await this.movedPast(ahead, versions))]);
      result.checked += rows.length;
    }
    for await (const ids of this.inventory.documentIdBatches(batchSize)) {
      const existing = await this.videos.existingIds(ids);
      const orphans = ids.filter((id) => !existing.has(id));
      await this.writer.deleteDocuments(orphans);
      result.removed += orphans.length;
    }
    if (result.missing + result.stale + result.ahead + result.removed + replayed > 0) {
      this.logger.log(result, 'index drift repaired');
    }
    return result;
  }

  /** The rows, each re-read after its version was moved one past its document's. */
  private async movedPast(rows: VideoEntity[], indexed: Map<string, number>): Promise<VideoEntity[]> {
    if (rows.length === 0) return [];
    await this.videos.advanceVersions(
      rows.map((row) => ({ id: row.id, from: row.version, to: indexed.get(row.id)! + 1 })),
    );
    // A row another writer changed meanwhile has a version of its own now, and its write follows.
    return this.videos.findByIds(rows.map((row) => row.id));
  }
}
