import { Injectable, Logger } from '@nestjs/common';
import { ErasureWorkService, type ErasureStep } from '@app/shared/erasure/erasure-work.service';
import type { JobPayloads } from '@app/shared/queue/jobs';
import type { JobHandler } from '../jobs/job-handler';

@Injectable()
export class EraseAuthorHandler implements JobHandler<'erase-author'> {
  readonly name = 'erase-author';
  private readonly logger = new Logger(EraseAuthorHandler.name);

  constructor(private readonly work: ErasureWorkService) {}

  async handle({ erasureId, requestId }: JobPayloads['erase-author']): Promise<ErasureStep> {
    const outcome = await this.work.run(erasureId, requestId);
    this.logger.log({ erasureId, requestId, outcome }, 'erasure job done');
    return outcome;
  }
}
