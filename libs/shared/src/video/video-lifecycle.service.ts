import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG } from '../config/config.module';
import { transactionRetryingDeadlocks } from '../database/transaction';
import type { AppConfig } from '../config/config.schema';
import { videoChangeEvent } from './video-events';
import { OutboxService } from '../events/outbox.service';
import { JobQueues } from '../queue/job-queues.service';
import { queueEffect } from './video-effects';
import { VideoIndexSyncService } from './video-index-sync.service';
import { decide, type Actor, type Command, type Decision, type NextState } from './video-lifecycle';
import type { VideoEntity } from './video.entity';
import { VideoRepository } from './video.repository';

export type ApplyResult =
  { kind: 'not_found' } | { kind: 'forbidden' } | { kind: 'ok'; id: string; state: NextState };

type Change = Extract<Decision, { kind: 'change' }>;

/**
 * The callers' commands on one video (docs/contract.md §6, §8): soft delete, permanent delete and
 * restore. A decision and its intent are committed together in MySQL; the queue and the index
 * follow after the commit (queue calls never hold a request hostage while Redis is away), and the
 * sweeps and the reconciler repair them if they do not.
 */
@Injectable()
export class VideoLifecycleService {
  private readonly logger = new Logger(VideoLifecycleService.name);
  private readonly defaultRetentionDays: number;

  constructor(
    private readonly dataSource: DataSource,
    private readonly videos: VideoRepository,
    private readonly queues: JobQueues,
    private readonly index: VideoIndexSyncService,
    private readonly outbox: OutboxService,
    @Inject(APP_CONFIG) config: Pick<AppConfig, 'RETENTION_DEFAULT_DAYS'>,
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

  private async apply(id: string, command: Command, actor: Actor, requestId?: string): Promise<ApplyResult> {
    const now = new Date();
    const { decision, video } = await this.decideAndCommit(id, command, actor, now);
    if (decision.kind === 'not_found' || decision.kind === 'forbidden') return { kind: decision.kind };
    if (decision.kind === 'change') await this.followUp(video!, decision, now, requestId);
    return { kind: 'ok', id, state: decision.kind === 'change' ? decision.next : decision.current };
  }

  /**
   * Reads the row under a lock, decides, and writes the new state and version with the event that
   * reports it, in one transaction, run again when MySQL picks it as a deadlock's victim: changing a
   * row's state moves its entry in the `(id, state, version)` index, so two changes of videos whose
   * ids are neighbours there can deadlock on the gap between them (seen under the bench's churn).
   */
  private decideAndCommit(id: string, command: Command, actor: Actor, now: Date) {
    return transactionRetryingDeadlocks(this.dataSource, async (manager) => {
      const video = await this.videos.lockById(manager, id);
      const decision: Decision = decide(video, command, actor, now);
      if (decision.kind === 'change') {
        await this.videos.applyState(id, decision.next, now, { runner: manager, from: video!.state });
        await this.outbox.record(manager, [videoChangeEvent(video!, decision.next, actor.sub, now)]);
      }
      return { decision, video };
    });
  }

  /** After the commit: make the queue prompt and the index current. Failures here lose nothing. */
  private async followUp(
    before: VideoEntity,
    decision: Change,
    now: Date,
    requestId?: string,
  ): Promise<void> {
    const after: VideoEntity = { ...before, ...decision.next, version: before.version + 1, updatedAt: now };
    for (const effect of decision.effects) {
      await queueEffect(this.queues, after.id, effect, after, now, requestId).catch((error: unknown) =>
        // The sweep finds the row by its state and purge date; nothing depends on this job alone.
        this.logger.warn(`${effect} for ${after.id} deferred to the sweep: ${String(error)}`),
      );
    }
    await this.index.write(after, requestId);
  }
}
