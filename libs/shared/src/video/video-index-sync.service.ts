import { Injectable, Logger } from '@nestjs/common';
import { QUEUE_TIMEOUT_MS } from '../queue/enqueue';
import { JobQueues } from '../queue/job-queues.service';
import { IndexWriter } from '../search/index-writer.service';
import { withTimeout } from '../util/with-timeout';
import type { VideoEntity } from './video.entity';
import { VideoRepository } from './video.repository';

/**
 * How long a command waits for its index write before it leaves it to a repair job: as long as it
 * waits for Redis to take a job (QUEUE_TIMEOUT_MS), so neither store away holds a request for long.
 */
export const INDEX_WRITE_WAIT_MS = QUEUE_TIMEOUT_MS;

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
   * the same moment, in one bulk request); if that fails, or has not answered within
   * INDEX_WRITE_WAIT_MS (a hung engine, a bulk request queued behind one), a job repairs it and
   * the caller goes on: the write may still land, at the same version. Never throws.
   */
  async write(video: VideoEntity, requestId?: string): Promise<void> {
    try {
      await withTimeout(this.index.indexVideo(video), INDEX_WRITE_WAIT_MS, `index write of ${video.id}`);
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
