import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG } from '@app/shared/config/config.module';
import type { AppConfig } from '@app/shared/config/config.schema';
import { JobQueues } from '@app/shared/queue/job-queues.service';
import { TrashOperationRepository } from '@app/shared/trash/trash-operation.repository';
import { DAY_MS } from '@app/shared/util/time';
import type { SweepHandler } from '@app/shared/queue/job-handler';

export interface TrashSweepResult {
  resumed: number;
  pruned: number;
}

/** Completed operations deleted per statement, and statements per run: a backlog goes over a few runs. */
const PRUNE_BATCH = 1_000;
const PRUNE_BATCHES_PER_RUN = 10;

/**
 * MySQL holds every running trash operation, so this sweep alone finishes each one even if Redis
 * lost its job: each gets its job again (one per operation, so a job that waits or runs is left
 * alone). It also applies their retention: a completed operation goes
 * `TRASH_OPERATION_RETENTION_DAYS` after its completion.
 */
@Injectable()
export class TrashSweepHandler implements SweepHandler {
  private readonly logger = new Logger(TrashSweepHandler.name);
  private readonly retentionMs: number;

  constructor(
    private readonly operations: TrashOperationRepository,
    private readonly queues: JobQueues,
    @Inject(APP_CONFIG) config: Pick<AppConfig, 'TRASH_OPERATION_RETENTION_DAYS'>,
  ) {
    this.retentionMs = config.TRASH_OPERATION_RETENTION_DAYS * DAY_MS;
  }

  async handle(): Promise<TrashSweepResult> {
    const result = { resumed: 0, pruned: 0 };
    for (const id of await this.operations.unfinished()) {
      await this.queues.ensureTrashJob(id);
      result.resumed += 1;
    }
    const before = new Date(Date.now() - this.retentionMs);
    for (let batch = 0; batch < PRUNE_BATCHES_PER_RUN; batch += 1) {
      const deleted = await this.operations.deleteCompletedBefore(before, PRUNE_BATCH);
      result.pruned += deleted;
      if (deleted < PRUNE_BATCH) break;
    }
    if (result.pruned > 0) this.logger.log(result, 'trash sweep pruned completed operations');
    return result;
  }
}
