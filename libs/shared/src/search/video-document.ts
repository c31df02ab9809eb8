import type { VideoEntity } from '../video/video.entity';
import { foldedText, foldedWords, stemmedText } from './search-text';
import type { VideoDocument } from './video-index.definition';

type IndexedVideo = Pick<
  VideoEntity,
  'id' | 'authorId' | 'state' | 'title' | 'description' | 'tags' | 'speakers' | 'event' | 'publishedAt'
>;

export function toVideoDocument(video: IndexedVideo): VideoDocument {
  // Speakers and event beside the title: a speaker's surname and a title word match together.
  const heading = [video.title, ...video.speakers, ...(video.event ? [video.event] : [])];
  return {
    id: video.id,
    authorId: video.authorId,
    state: video.state,
    title: video.title,
    description: video.description,
    tags: video.tags,
    publishedAt: video.publishedAt ? video.publishedAt.toISOString() : null,
    heading: heading.map(foldedText),
    stems: {
      heading: heading.map(stemmedText),
      description: stemmedText(video.description),
      tags: video.tags.map(stemmedText),
    },
    spelling: [...new Set(foldedWords([...heading, video.description, ...video.tags].join(' ')))].join(' '),
  };
}
