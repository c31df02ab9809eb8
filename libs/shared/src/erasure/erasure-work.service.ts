import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { OutboxService } from '../events/outbox.service';
import { OutboxRetentionService } from '../events/outbox-retention.service';
import { TrashOperationRepository } from '../trash/trash-operation.repository';
import { VideoBatchCommands } from '../video/video-batch-commands.service';
import { VideoBatchRepository } from '../video/video-batch.repository';
import { requesterOf, runBatches, type BatchStep } from '../video/bulk-operation';
import type { Command } from '../video/video-lifecycle';
import type { ErasureEntity } from './erasure.entity';
import { ErasureRepository } from './erasure.repository';

export type ErasureStep = 'moved' | 'walked' | 'completed' | 'not_running';

/**
 * The worker's side of an erasure: walk the author's videos in id order, a batch per transaction,
 * each video through `decide()`. The batch's changes, their events, the walk's position and `done`
 * are committed together, so a process killed at any moment leaves either the whole batch or none
 * of it, and the next run (the job's retry, or the sweep's new job) carries on from the position
 * MySQL holds. A soft erasure completes with its walk; a permanent one when the worker's purges
 * have removed every one of its videos (media, index document and row). Either way its completion
 * erases the author's events from the outbox (docs/contract.md §10.4): those whose deliveries have
 * settled at once, the others (`erasure.completed` among them) as soon as theirs settle; and the
 * author's finished trash operations go with it.
 */
@Injectable()
export class ErasureWorkService {
  private readonly logger = new Logger(ErasureWorkService.name);
  private readonly defaultRetentionDays: number;
  /** Videos per transaction: each batch is one short transaction, whatever the author's catalogue. */
  private readonly batchSize: number;

  constructor(
    private readonly dataSource: DataSource,
    private readonly erasures: ErasureRepository,
    private readonly batches: VideoBatchRepository,
    private readonly commands: VideoBatchCommands,
    private readonly outbox: OutboxService,
    private readonly outboxRetention: OutboxRetentionService,
    private readonly trashOperations: TrashOperationRepository,
    @Inject(APP_CONFIG) config: Pick<AppConfig, 'RETENTION_DEFAULT_DAYS' | 'BULK_BATCH_SIZE'>,
  ) {
    this.defaultRetentionDays = config.RETENTION_DEFAULT_DAYS;
    this.batchSize = config.BULK_BATCH_SIZE;
  }

  /** Works the erasure off to the end of its walk; returns how it ended. */
  async run(erasureId: string, requestId?: string): Promise<Exclude<ErasureStep, 'moved'>> {
    const step = await runBatches(
      this.dataSource,
      this.commands,
      'moved',
      (manager, now) => this.step(manager, erasureId, now),
      requestId,
    );
    if (step === 'walked') return (await this.completeIfPurged(erasureId)) ? 'completed' : 'walked';
    if (step === 'completed') await this.pruneErasedEvents();
    return step;
  }

  /** One batch, in the caller's transaction, with the erasure row locked first. */
  private async step(manager: EntityManager, erasureId: string, now: Date): Promise<BatchStep<ErasureStep>> {
    const erasure = await this.erasures.lockById(manager, erasureId);
    if (erasure?.state !== 'running') return { step: 'not_running', changes: [] };
    const rows = await this.batches.lockErasableBatch(
      manager,
      { authorId: erasure.authorId, createdBy: erasure.startedAt, afterId: erasure.afterId },
      this.batchSize,
    );
    const changes = await this.commands.decideAndWrite(
      manager,
      rows,
      this.command(erasure),
      requesterOf(erasure),
      now,
    );
    if (rows.length === this.batchSize) {
      await this.erasures.advance(manager, erasure.id, rows.at(-1)!.id, rows.length, now);
      return { step: 'moved', changes };
    }
    if (erasure.mode === 'soft') {
      await this.complete(manager, erasure, now);
      return { step: 'completed', changes };
    }
    await this.erasures.finishWalk(manager, erasure.id, 'purging', now);
    return { step: 'walked', changes };
  }

  /**
   * Completes a permanent erasure whose videos are all purged: none of the author's videos it
   * covered is still being deleted. Returns whether it completed now.
   */
  async completeIfPurged(erasureId: string): Promise<boolean> {
    const completed = await this.dataSource.transaction(async (manager) => {
      const erasure = await this.erasures.lockById(manager, erasureId);
      if (erasure?.state !== 'purging') return false;
      if ((await this.batches.countDeleting(manager, erasure.authorId, erasure.startedAt)) > 0) return false;
      await this.complete(manager, erasure, new Date());
      return true;
    });
    if (completed) await this.pruneErasedEvents();
    return completed;
  }

  /**
   * Marks the erasure completed, records `erasure.completed`, marks the author's events erased
   * (that one included) and deletes the author's finished trash operations, in one transaction:
   * all or nothing (docs/contract.md §10.4).
   */
  private async complete(manager: EntityManager, erasure: ErasureEntity, now: Date): Promise<void> {
    if (!(await this.erasures.finishWalk(manager, erasure.id, 'completed', now))) return;
    await this.outbox.recordErasureCompleted(
      manager,
      {
        erasureId: erasure.id,
        authorId: erasure.authorId,
        mode: erasure.mode,
        total: erasure.total,
        requestedBy: erasure.requestedBy,
        startedAt: erasure.startedAt.toISOString(),
        completedAt: now.toISOString(),
      },
      now,
    );
    await this.outboxRetention.markAuthorErased(manager, erasure.authorId, now);
    await this.trashOperations.deleteCompletedOfAuthor(manager, erasure.authorId);
  }

  /**
   * After the completion's commit: the erased events whose deliveries have settled go now, in
   * batches of their own. What this does not finish (a failure, a killed worker), the prune sweep does.
   */
  private async pruneErasedEvents(): Promise<void> {
    await this.outboxRetention
      .pruneErased()
      .catch((error: unknown) =>
        this.logger.warn(`erased events left to the outbox prune sweep: ${String(error)}`),
      );
  }

  private command(erasure: ErasureEntity): Command {
    if (erasure.mode === 'permanent') return { type: 'permanent_delete' };
    return {
      type: 'soft_delete',
      retentionDays: erasure.retentionDays ?? undefined,
      defaultRetentionDays: this.defaultRetentionDays,
    };
  }
}
