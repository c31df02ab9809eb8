import { Injectable, Logger } from '@nestjs/common';
import { ErasureWorkService } from '@app/shared/erasure/erasure-work.service';
import { ErasureRepository } from '@app/shared/erasure/erasure.repository';
import { JobQueues } from '@app/shared/queue/job-queues.service';
import type { SweepHandler } from '@app/shared/queue/job-handler';

export interface ErasureSweepResult {
  resumed: number;
  completed: number;
}

/**
 * MySQL holds every unfinished erasure, so this sweep alone finishes each one even if Redis lost
 * its job: an erasure still moving videos gets its job again (one per erasure, so a job that is
 * running is left alone), and one waiting for its purges completes once they are all done.
 */
@Injectable()
export class ErasureSweepHandler implements SweepHandler {
  private readonly logger = new Logger(ErasureSweepHandler.name);

  constructor(
    private readonly erasures: ErasureRepository,
    private readonly work: ErasureWorkService,
    private readonly queues: JobQueues,
  ) {}

  async handle(): Promise<ErasureSweepResult> {
    const result = { resumed: 0, completed: 0 };
    for (const { id, state } of await this.erasures.unfinished()) {
      if (state === 'running') {
        await this.queues.ensureErasureJob(id);
        result.resumed += 1;
      } else if (await this.work.completeIfPurged(id)) {
        result.completed += 1;
      }
    }
    if (result.completed > 0) this.logger.log(result, 'erasure sweep completed erasures');
    return result;
  }
}
