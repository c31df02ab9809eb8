import { Injectable } from '@nestjs/common';
import type { JobPayloads } from '@app/shared/queue/jobs';
import { VideoIndexSyncService } from '@app/shared/video/video-index-sync.service';
import type { JobHandler } from '@app/shared/queue/job-handler';

@Injectable()
export class SyncVideoHandler implements JobHandler<'sync-video'> {
  constructor(private readonly index: VideoIndexSyncService) {}

  handle({ videoId }: JobPayloads['sync-video']): Promise<void> {
    return this.index.syncVideo(videoId);
  }
}
