import { Injectable, Logger } from '@nestjs/common';
import type { Job } from 'bullmq';
import { ErasureWorkService, type ErasureStep } from '@app/shared/erasure/erasure-work.service';
import { JobQueues } from '@app/shared/queue/job-queues.service';
import { JOBS, type JobPayloads } from '@app/shared/queue/jobs';
import type { JobHandler } from '@app/shared/queue/job-handler';

@Injectable()
export class EraseAuthorHandler implements JobHandler<'erase-author'> {
  private readonly logger = new Logger(EraseAuthorHandler.name);

  constructor(
    private readonly work: ErasureWorkService,
    private readonly queues: JobQueues,
  ) {}

  async handle(
    { erasureId, requestId }: JobPayloads['erase-author'],
    job?: Pick<Job, 'queueName'>,
  ): Promise<ErasureStep | 'handed_over'> {
    // Queued before erasures had a queue of their own (on the deletion queue): handed to its queue
    // rather than walked on a deletion slot. Its id there is the erasure's, so it runs once.
    if (job && job.queueName !== JOBS['erase-author'].queue) {
      await this.queues.ensureErasureJob(erasureId, requestId);
      this.logger.log({ erasureId, from: job.queueName }, 'erasure job handed to its queue');
      return 'handed_over';
    }
    const outcome = await this.work.run(erasureId, requestId);
    this.logger.log({ erasureId, requestId, outcome }, 'erasure job done');
    return outcome;
  }
}
