import { foldedText, foldedWords, stemmedText } from './search-text';
import type { VideoDocument } from './video-index.definition';

/**
 * What a document is made from: a video row's searchable fields. The row (`VideoEntity`) has them;
 * the index knows no more of a video than this, so search/ depends on nothing of video/.
 */
export interface IndexedVideo {
  id: string;
  authorId: string;
  state: string;
  title: string;
  description: string;
  tags: string[];
  speakers: string[];
  event: string | null;
  publishedAt: Date | null;
  /** ISO 639-3, `und` when undetermined (libs/shared/src/language/). */
  language: string;
}

/** A video as the index writes it: its fields and the row's version (external versioning). */
export interface VersionedVideo extends IndexedVideo {
  version: number;
}

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
    language: video.language,
    folded: { title: foldedText(video.title) },
    stems: {
      heading: heading.map(stemmedText),
      description: stemmedText(video.description),
      labels: labels.map(stemmedText),
    },
    spelling: [...new Set(foldedWords([...heading, video.description, ...labels].join(' ')))].join(' '),
  };
}
