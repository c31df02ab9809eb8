import type { VideoEntity } from '../video/video.entity';
import { foldedText, foldedWords, stemmedText } from './search-text';
import type { VideoDocument } from './video-index.definition';

type IndexedVideo = Pick<
  VideoEntity,
  'id' | 'authorId' | 'state' | 'title' | 'description' | 'tags' | 'speakers' | 'event' | 'publishedAt'
>;

export function toVideoDocument(video: IndexedVideo): VideoDocument {
  // Speakers beside the title: a speaker's surname and a title word match together. The event
  // names many videos, like a tag.
  const heading = [video.title, ...video.speakers];
  const labels = [...video.tags, ...(video.event ? [video.event] : [])];
  return {
    id: video.id,
    authorId: video.authorId,
    state: video.state,
    title: video.title,
    description: video.description,
    tags: video.tags,
    publishedAt: video.publishedAt ? video.publishedAt.toISOString() : null,
    folded: { title: foldedText(video.title) },
    stems: {
      heading: heading.map(stemmedText),
      description: stemmedText(video.description),
      labels: labels.map(stemmedText),
    },
    spelling: [...new Set(foldedWords([...heading, video.description, ...labels].join(' ')))].join(' '),
  };
}
