import { Injectable, Logger } from '@nestjs/common';
import type { JobPayloads } from '@app/shared/queue/jobs';
import { VideoPurgeService, type PurgeOutcome } from '@app/shared/video/video-purge.service';
import type { JobHandler } from '@app/shared/queue/job-handler';

@Injectable()
export class DeleteVideoHandler implements JobHandler<'delete-video'> {
  private readonly logger = new Logger(DeleteVideoHandler.name);

  constructor(private readonly purger: VideoPurgeService) {}

  async handle({ videoId, requestId }: JobPayloads['delete-video']): Promise<PurgeOutcome> {
    const outcome = await this.purger.purge(videoId);
    this.logger.log({ videoId, requestId, outcome }, 'deletion job done');
    return outcome;
  }
}
