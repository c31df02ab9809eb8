import { Injectable, Logger } from '@nestjs/common';
import { IndexAdmin } from '@app/shared/search/index-admin.service';
import type { SweepHandler } from '@app/shared/queue/job-handler';

/**
 * Every `EXPUNGE_INTERVAL_MS`: the index's deleted documents dropped from its segments, so that
 * nothing of a deleted or erased video stays in the engine's files (docs/contract.md §10.4).
 */
@Injectable()
export class ExpungeSweepHandler implements SweepHandler {
  private readonly logger = new Logger(ExpungeSweepHandler.name);

  constructor(private readonly index: IndexAdmin) {}

  async handle(): Promise<{ deletedBefore: number; deletedAfter: number }> {
    const started = performance.now();
    const { deletedBefore, deletedAfter } = await this.index.expungeDeletes();
    if (deletedBefore > 0)
      this.logger.log(
        { deletedBefore, deletedAfter, ms: Math.round(performance.now() - started) },
        'deleted documents expunged from the index',
      );
    return { deletedBefore, deletedAfter };
  }
}
