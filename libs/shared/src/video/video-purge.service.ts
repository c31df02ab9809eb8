import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { videoChangeEvent, videoPurgedEvent } from './video-events';
import { OutboxService } from '../events/outbox.service';
import { IndexWriter } from '../search/index-writer.service';
import { StorageCleaner } from '../storage/storage-cleaner';
import { CoalescingBatcher } from '../util/coalescing-batcher';
import { DeletionLedger } from './deletion-ledger.service';
import { decide } from './video-lifecycle';
import { VideoState } from './video-state';
import { type FinishedDeletion, type VideoLifecycleRow, VideoRepository } from './video.repository';

export type PurgeOutcome = 'purged' | 'already_gone' | 'not_due' | 'restored';

/**
 * The worker's deletion of one video: claim a due purge (or a deletion already started), delete
 * every media object and the index document, write the deletion to the ledger, then delete the row
 * with one audit record. Every step is
 * idempotent, so a retry, a crash and restart or two workers at once all end in the same state
 * with one audit record and one `video.purged` event.
 */
@Injectable()
export class VideoPurgeService {
  /** Concurrent purges finish together: one transaction per batch. */
  private readonly finishing = new CoalescingBatcher<FinishedDeletion>(async (batch) => {
    await this.finish(batch);
    return batch.map(() => undefined);
  });

  constructor(
    private readonly dataSource: DataSource,
    private readonly videos: VideoRepository,
    private readonly index: IndexWriter,
    private readonly cleaner: StorageCleaner,
    private readonly outbox: OutboxService,
    private readonly ledger: DeletionLedger,
  ) {}

  async purge(videoId: string): Promise<PurgeOutcome> {
    const deleting = await this.claim(videoId);
    if (typeof deleting === 'string') return deleting;
    const objectsDeleted = await this.cleaner.deleteMedia(videoId);
    await this.index.deleteDocument(videoId);
    const finished = { video: deleting, objectsDeleted, purgedAt: new Date() };
    // In the ledger before MySQL forgets the row: no backup restored later can lose this deletion.
    await this.ledger.record(finished);
    await this.finishing.add(finished);
    return 'purged';
  }

  /**
   * Moves a due purge to `deleting` with its `video.deletion_started` event (or finds a deletion
   * already under way). Optimistic: read, decide, write only if the version has not moved; a
   * concurrent change means decide again.
   */
  private async claim(videoId: string): Promise<VideoLifecycleRow | Exclude<PurgeOutcome, 'purged'>> {
    for (;;) {
      const now = new Date();
      const video = await this.videos.findLifecycle(videoId);
      if (!video) return 'already_gone';
      const decision = decide(video, { type: 'claim_purge' }, null, now);
      if (decision.kind !== 'change') {
        if (video.state === VideoState.Deleting) return video;
        return video.state === VideoState.Active ? 'restored' : 'not_due';
      }
      const claimed = await this.dataSource.transaction(async (manager) => {
        const written = await this.videos.applyState(videoId, decision.next, now, {
          runner: manager,
          expectedVersion: video.version,
          from: video.state,
        });
        if (written) await this.outbox.record(manager, [videoChangeEvent(video, decision.next, null, now)]);
        return written;
      });
      if (claimed) return { ...video, ...decision.next, version: video.version + 1 };
    }
  }

  /**
   * Audit records, `video.purged` events and row deletions in one transaction, for the rows still
   * in `deleting` (locked first): a deletion another worker finished meanwhile is not reported twice.
   */
  private finish(batch: FinishedDeletion[]): Promise<void> {
    return this.dataSource.transaction(async (manager) => {
      const deleting = await this.videos.lockDeleting(
        manager,
        batch.map(({ video }) => video.id),
      );
      // Each locked id once, should a batch carry one video twice.
      const finishing = batch.filter(({ video }) => deleting.delete(video.id));
      await this.videos.finishDeletions(manager, finishing);
      await this.outbox.record(
        manager,
        finishing.map(({ video, objectsDeleted, purgedAt }) =>
          videoPurgedEvent(video, objectsDeleted, purgedAt),
        ),
      );
    });
  }
}
