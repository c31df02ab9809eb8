import type { VideoEntity } from '../video/video.entity';
import type { VideoDocument } from './video-index.definition';

export function toVideoDocument(video: VideoEntity): VideoDocument {
  return {
    id: video.id,
    authorId: video.authorId,
    state: video.state,
    title: video.title,
    description: video.description,
    tags: video.tags,
    publishedAt: video.publishedAt ? video.publishedAt.toISOString() : null,
  };
}
