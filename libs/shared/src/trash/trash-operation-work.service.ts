import { Inject, Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { requesterOf, runBatches, type BatchStep } from '../video/bulk-operation';
import { VideoBatchCommands } from '../video/video-batch-commands.service';
import { VideoBatchRepository } from '../video/video-batch.repository';
import type { Command } from '../video/video-lifecycle';
import type { TrashOperationKind } from './trash-operation.entity';
import { TrashOperationRepository } from './trash-operation.repository';

export type TrashOperationStep = 'moved' | 'completed' | 'not_running';

/** The one-video command each kind applies to every video of the trash (§8, §6). */
const COMMANDS: Record<TrashOperationKind, Command> = {
  restore: { type: 'restore' },
  empty: { type: 'permanent_delete' },
};

/**
 * The worker's side of a trash operation: the author's trash as it was when asked (soft-deleted up
 * to `startedAt`), oldest deletion first, a batch per transaction, each video through `decide()` as
 * the caller who asked. Both commands take a video out of the trash, so each batch starts at the
 * first video left: the batch's changes, their events and `done` are committed together, and a
 * process killed at any moment leaves the whole batch or none of it for the next run (the job's
 * retry, or the sweep's new job) to carry on from. An empty completes when every deletion has
 * started; the purges are the deletion jobs' work, as for one permanent delete.
 */
@Injectable()
export class TrashOperationWorkService {
  /** Videos per transaction: each batch is one short transaction, whatever the size of the trash. */
  private readonly batchSize: number;

  constructor(
    private readonly dataSource: DataSource,
    private readonly operations: TrashOperationRepository,
    private readonly batches: VideoBatchRepository,
    private readonly commands: VideoBatchCommands,
    @Inject(APP_CONFIG) config: Pick<AppConfig, 'BULK_BATCH_SIZE'>,
  ) {
    this.batchSize = config.BULK_BATCH_SIZE;
  }

  /** Works the operation off to its end; returns how it ended. */
  run(operationId: string, requestId?: string): Promise<Exclude<TrashOperationStep, 'moved'>> {
    return runBatches<TrashOperationStep, 'moved'>(
      this.dataSource,
      this.commands,
      'moved',
      (manager, now) => this.step(manager, operationId, now),
      requestId,
    );
  }

  /** One batch, in the caller's transaction, with the operation's row locked first. */
  private async step(
    manager: EntityManager,
    operationId: string,
    now: Date,
  ): Promise<BatchStep<TrashOperationStep>> {
    const operation = await this.operations.lockById(manager, operationId);
    if (operation?.state !== 'running') return { step: 'not_running', changes: [] };
    const rows = await this.batches.lockTrashBatch(
      manager,
      operation.authorId,
      operation.startedAt,
      this.batchSize,
    );
    const changes = await this.commands.decideAndWrite(
      manager,
      rows,
      COMMANDS[operation.kind],
      requesterOf(operation),
      now,
    );
    // A full batch may have more behind it. One that changed nothing would be read again: end there.
    if (rows.length === this.batchSize && changes.length > 0) {
      await this.operations.advance(manager, operation.id, changes.length, now);
      return { step: 'moved', changes };
    }
    await this.operations.complete(manager, operation.id, now);
    return { step: 'completed', changes };
  }
}
