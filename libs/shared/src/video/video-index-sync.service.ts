import { Injectable, Logger } from '@nestjs/common';
import { JobQueues } from '../queue/job-queues.service';
import { IndexWriter } from '../search/index-writer.service';
import type { VideoEntity } from './video.entity';
import { VideoRepository } from './video.repository';

/**
 * Keeps a video's index document in line with its row. MySQL is the truth: a write that fails here
 * becomes a `sync-video` job, and the reconciler repairs whatever that job misses.
 */
@Injectable()
export class VideoIndexSyncService {
  private readonly logger = new Logger(VideoIndexSyncService.name);

  constructor(
    private readonly videos: VideoRepository,
    private readonly index: IndexWriter,
    private readonly queues: JobQueues,
  ) {}

  /**
   * Writes a row just committed into the index (with the writes of other commands in flight at
   * the same moment, in one bulk request); if that fails, a job retries it. Never throws.
   */
  async write(video: VideoEntity, requestId?: string): Promise<void> {
    try {
      await this.index.indexVideo(video);
    } catch (error) {
      this.logger.warn(`index update for ${video.id} deferred: ${String(error)}`);
      await this.queues.queueIndexRepair(video.id, video.version, requestId);
    }
  }

  /** Writes rows just committed in one bulk request; if that fails, a job per row retries it. Never throws. */
  async writeMany(videos: VideoEntity[], requestId?: string): Promise<void> {
    try {
      await this.index.indexVideos(videos);
    } catch (error) {
      this.logger.warn(`index update for ${videos.length} video(s) deferred: ${String(error)}`);
      for (const video of videos) await this.queues.queueIndexRepair(video.id, video.version, requestId);
    }
  }

  /** Rewrites one video's index document from its row (or removes it when the row is gone). */
  async syncVideo(videoId: string): Promise<void> {
    const [video] = await this.videos.findByIds([videoId]);
    if (video) await this.index.indexVideos([video]);
    else await this.index.deleteDocument(videoId);
  }
}
