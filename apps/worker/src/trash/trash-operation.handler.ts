import { Injectable, Logger } from '@nestjs/common';
import type { JobPayloads } from '@app/shared/queue/jobs';
import {
  TrashOperationWorkService,
  type TrashOperationStep,
} from '@app/shared/trash/trash-operation-work.service';
import type { JobHandler } from '@app/shared/queue/job-handler';

@Injectable()
export class TrashOperationHandler implements JobHandler<'trash-operation'> {
  private readonly logger = new Logger(TrashOperationHandler.name);

  constructor(private readonly work: TrashOperationWorkService) {}

  async handle({ operationId, requestId }: JobPayloads['trash-operation']): Promise<TrashOperationStep> {
    const outcome = await this.work.run(operationId, requestId);
    this.logger.log({ operationId, requestId, outcome }, 'trash operation job done');
    return outcome;
  }
}
