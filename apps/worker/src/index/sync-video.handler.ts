import { Injectable } from '@nestjs/common';
import type { JobPayloads } from '@app/shared/queue/jobs';
import { VideoDeletionService } from '@app/shared/video/video-deletion.service';
import type { JobHandler } from '../jobs/job-handler';

@Injectable()
export class SyncVideoHandler implements JobHandler<'sync-video'> {
  readonly name = 'sync-video';

  constructor(private readonly deletion: VideoDeletionService) {}

  handle({ videoId }: JobPayloads['sync-video']): Promise<void> {
    return this.deletion.syncVideo(videoId);
  }
}
