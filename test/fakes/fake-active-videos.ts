import { ActiveVideos } from '@app/api/search/active/active-videos';
import type { MetricsService } from '@app/shared/metrics/metrics.service';
import type { JobQueues } from '@app/shared/queue/job-queues.service';
import type { VideoChangeFeed } from '@app/shared/video/video-change-feed';
import type { VideoRepository, VideoSummary } from '@app/shared/video/video.repository';
import { FakeChangeFeed } from './fake-change-feed';

/** A video as a search shows it. */
export function videoSummary(id: string, changes: Partial<VideoSummary> = {}): VideoSummary {
  return {
    id,
    title: `Title ${id}`,
    description: '',
    authorId: 'a1',
    speakers: [],
    event: null,
    publishedAt: null,
    tags: [],
    language: 'eng',
    version: 1,
    ...changes,
  };
}

/**
 * `ActiveVideos` over `videos` (MySQL's rows), with the change feed in memory (`feed`) and queues
 * that add each index repair's id to `repaired`; started, so it hears the feed's local changes.
 */
export function activeVideosOver(
  videos: Pick<VideoRepository, 'findActiveByIds'>,
  { feed = new FakeChangeFeed(), repaired = [] }: { feed?: FakeChangeFeed; repaired?: string[] } = {},
): ActiveVideos {
  const queues = {
    queueIndexRepair: (id: string) => {
      repaired.push(id);
      return Promise.resolve();
    },
  };
  const active = new ActiveVideos(
    feed as unknown as VideoChangeFeed,
    videos as VideoRepository,
    queues as unknown as JobQueues,
    { searchItemCache: { inc: () => undefined } } as unknown as MetricsService,
    { SEARCH_ITEM_CACHE_MB: 1 },
  );
  active.onModuleInit();
  return active;
}
