import { Injectable } from '@nestjs/common';
import type { JobPayloads } from '@app/shared/queue/jobs';
import { VideoIndexSyncService } from '@app/shared/video/video-index-sync.service';
import type { JobHandler } from '../jobs/job-handler';

@Injectable()
export class SyncVideoHandler implements JobHandler<'sync-video'> {
  readonly name = 'sync-video';

  constructor(private readonly index: VideoIndexSyncService) {}

  handle({ videoId }: JobPayloads['sync-video']): Promise<void> {
    return this.index.syncVideo(videoId);
  }
}
