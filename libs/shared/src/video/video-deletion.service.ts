import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { JobQueues, QUEUE_TIMEOUT_MS } from '../queue/job-queues.service';
import { SearchIndexService } from '../search/search-index.service';
import { StorageCleaner } from '../storage/storage-cleaner';
import { decide, type Actor, type Command, type Decision, type NextState } from './video-lifecycle';
import { VideoState } from './video-state';
import type { VideoEntity } from './video.entity';
import { type FinishedDeletion, type VideoLifecycleRow, VideoRepository } from './video.repository';
import { CoalescingBatcher } from '../util/coalescing-batcher';
import { withTimeout } from '../util/with-timeout';

/** Queue calls must not hold a request hostage while Redis is away: the row already holds the intent. */

export type ApplyResult =
  { kind: 'not_found' } | { kind: 'forbidden' } | { kind: 'ok'; id: string; state: NextState };

export type PurgeOutcome = 'purged' | 'already_gone' | 'not_due' | 'restored';

/**
 * The rule "what may be deleted, by whom, and what happens next" (docs/contract.md §11): the API, the worker
 * and the tests all come through here. A decision and its intent are committed together in MySQL;
 * the queue and the index follow after the commit, and the sweeps and reconciler repair them if
 * they do not.
 */
@Injectable()
export class VideoDeletionService {
  private readonly logger = new Logger(VideoDeletionService.name);
  private readonly defaultRetentionDays: number;
  /** Concurrent purges finish together: one audit insert and one row delete per batch. */
  private readonly finishing = new CoalescingBatcher<FinishedDeletion>(async (batch) => {
    await this.videos.finishDeletions(batch);
    return batch.map(() => undefined);
  });

  constructor(
    private readonly dataSource: DataSource,
    private readonly videos: VideoRepository,
    private readonly queues: JobQueues,
    private readonly search: SearchIndexService,
    private readonly cleaner: StorageCleaner,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.defaultRetentionDays = config.RETENTION_DEFAULT_DAYS;
  }

  softDelete(
    id: string,
    actor: Actor,
    retentionDays: number | undefined,
    requestId?: string,
  ): Promise<ApplyResult> {
    return this.apply(
      id,
      { type: 'soft_delete', retentionDays, defaultRetentionDays: this.defaultRetentionDays },
      actor,
      requestId,
    );
  }

  permanentDelete(id: string, actor: Actor, requestId?: string): Promise<ApplyResult> {
    return this.apply(id, { type: 'permanent_delete' }, actor, requestId);
  }

  restore(id: string, actor: Actor, requestId?: string): Promise<ApplyResult> {
    return this.apply(id, { type: 'restore' }, actor, requestId);
  }

  private async apply(
    id: string,
    command: Command,
    actor: Actor | null,
    requestId?: string,
  ): Promise<ApplyResult> {
    const now = new Date();
    const { decision, video } = await this.decideAndCommit(id, command, actor, now);
    if (decision.kind === 'not_found' || decision.kind === 'forbidden') return { kind: decision.kind };
    if (decision.kind === 'change') await this.followUp(video!, decision, now, requestId);
    return { kind: 'ok', id, state: decision.kind === 'change' ? decision.next : decision.current };
  }

  /** Reads the row under a lock, decides, and writes the new state and version in one transaction. */
  private decideAndCommit(id: string, command: Command, actor: Actor | null, now: Date) {
    return this.dataSource.transaction(async (manager) => {
      const video = await this.videos.lockById(manager, id);
      const decision: Decision = decide(video, command, actor, now);
      if (decision.kind === 'change')
        await this.videos.applyState(id, decision.next, now, { runner: manager });
      return { decision, video };
    });
  }

  /** After the commit: make the queue prompt and the index current. Failures here lose nothing. */
  private async followUp(
    before: VideoEntity,
    decision: Extract<Decision, { kind: 'change' }>,
    now: Date,
    requestId?: string,
  ): Promise<void> {
    const after: VideoEntity = { ...before, ...decision.next, version: before.version + 1, updatedAt: now };
    for (const effect of decision.effects) {
      const delay =
        effect === 'schedule_purge' ? (after.purgeAt?.getTime() ?? now.getTime()) - now.getTime() : 0;
      const action =
        effect === 'cancel_purge'
          ? this.queues.cancelDeletionJob(after.id)
          : this.queues.ensureDeletionJob(after.id, delay, requestId);
      await withTimeout(action, QUEUE_TIMEOUT_MS, `queue ${effect}`).catch((error: unknown) =>
        // The sweep finds the row by its state and purge date; nothing depends on this job alone.
        this.logger.warn(`${effect} for ${after.id} deferred to the sweep: ${String(error)}`),
      );
    }
    await this.syncIndex(after, requestId);
  }

  /** Writes the row's new state into the index; if that fails, a job retries it (and the reconciler after that). */
  private async syncIndex(video: VideoEntity, requestId?: string): Promise<void> {
    try {
      await this.search.indexVideos([video]);
    } catch (error) {
      this.logger.warn(`index update for ${video.id} deferred: ${String(error)}`);
      await this.queues.queueIndexRepair(video.id, video.version, requestId);
    }
  }

  /**
   * The worker's deletion: claim a due purge, delete every media object, the index document and
   * then the row with one audit record. Every step is idempotent, so a retry, a crash and restart
   * or two workers at once all end in the same state with one audit record.
   */
  async purge(videoId: string): Promise<PurgeOutcome> {
    const deleting = await this.claimPurge(videoId);
    if (typeof deleting === 'string') return deleting;
    const objectsDeleted = await this.cleaner.deleteMedia(videoId);
    await this.search.deleteDocument(videoId);
    await this.finishing.add({ video: deleting, objectsDeleted, purgedAt: new Date() });
    return 'purged';
  }

  /**
   * Moves a due purge to `deleting` (or finds a deletion already under way). Optimistic: read,
   * decide, write only if the version has not moved; a concurrent change means decide again.
   */
  private async claimPurge(videoId: string): Promise<VideoLifecycleRow | Exclude<PurgeOutcome, 'purged'>> {
    for (;;) {
      const now = new Date();
      const video = await this.videos.findLifecycle(videoId);
      if (!video) return 'already_gone';
      const decision = decide(video, { type: 'claim_purge' }, null, now);
      if (decision.kind !== 'change') {
        if (video.state === VideoState.Deleting) return video;
        return video.state === VideoState.Active ? 'restored' : 'not_due';
      }
      if (await this.videos.applyState(videoId, decision.next, now, { expectedVersion: video.version })) {
        return { ...video, ...decision.next, version: video.version + 1 };
      }
    }
  }

  /** Rewrites one video's index document from its row (or removes it when the row is gone). */
  async syncVideo(videoId: string): Promise<void> {
    const [video] = await this.videos.findByIds([videoId]);
    if (video) await this.search.indexVideos([video]);
    else await this.search.deleteDocument(videoId);
  }
}
