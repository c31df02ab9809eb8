import { z } from 'zod';
import { AUTHOR_ID_RULE, isValidAuthorId } from '../ids/author-id';
import { AUTHOR_ID_NAMESPACE, isValidVideoId, normalizeId, uuidV5, VIDEO_ID_NAMESPACE } from '../ids/uuid';
import { isLanguageCode, LANGUAGE_CODE_RULE } from '../language/language-code';
import { languageText } from '../language/language-detector';
import type { VideoContent } from '../video/video.repository';

/** One line of an import file (docs/contract.md §9). Unknown fields are ignored. */
export const importRecordSchema = z
  .object({
    id: z.string().refine(isValidVideoId, 'must be a UUID (docs/contract.md §5)').optional(),
    slug: z.string().min(1).max(512).optional(),
    authorId: z.string().refine(isValidAuthorId, AUTHOR_ID_RULE).optional(),
    speakers: z.array(z.string().max(256)).nullish(),
    event: z.string().max(512).nullish(),
    title: z.string().trim().min(1).max(512),
    description: z.string().nullish(),
    tags: z.array(z.string()).nullish(),
    publishedAt: z.string().nullish(),
    recorded: z.string().nullish(),
    /** The language of the title and description; detected from them when absent or null. */
    language: z.string().refine(isLanguageCode, LANGUAGE_CODE_RULE).nullish(),
    media: z
      .array(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,200}$/, 'must be a plain object name'))
      .optional(),
  })
  .refine((record) => record.id !== undefined || record.slug !== undefined, {
    message: 'needs an id or a slug',
    path: ['id'],
  });

export type ImportRecord = z.infer<typeof importRecordSchema>;

export interface MediaObject {
  name: string;
  contentType: string;
  body: string;
}

export interface ImportedVideo {
  content: VideoContent;
  media: MediaObject[];
}

const DEFAULT_MEDIA = ['original.mp4', 'thumbnail.jpg'];
const CONTENT_TYPES: Record<string, string> = {
  mp4: 'video/mp4',
  webm: 'video/webm',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  vtt: 'text/vtt',
  json: 'application/json',
};

/** A date like `2019-05-04`, or a date-time with or without an offset (none means UTC). */
export function parseRecordDate(value: string | null | undefined): Date | null {
  if (!value) return null;
  const withZone = /^\d{4}-\d{2}-\d{2}$/.test(value)
    ? `${value}T00:00:00Z`
    : /(Z|[+-]\d{2}:?\d{2})$/i.test(value)
      ? value
      : `${value}Z`;
  const date = new Date(withZone);
  return Number.isNaN(date.getTime()) ? null : date;
}

/**
 * The author is the owner's JWT `sub`. When a record has none, one is derived from its first
 * speaker (or its event), so every import of the same file gives the same owners.
 */
function deriveAuthorId(record: ImportRecord): string {
  if (record.authorId) return record.authorId;
  const speaker = record.speakers?.map((name) => name.trim()).find((name) => name.length > 0);
  const source = speaker
    ? `speaker:${speaker.toLowerCase()}`
    : `event:${(record.event ?? 'unknown').toLowerCase()}`;
  return uuidV5(source, AUTHOR_ID_NAMESPACE);
}

/** Each name once, trimmed, in the record's order; blank names dropped. */
function distinctNames(names: string[] | null | undefined): string[] {
  return [...new Set((names ?? []).map((name) => name.trim()).filter((name) => name.length > 0))];
}

/**
 * A record as a video to store. `languageOf` names the language of a text (the import passes its
 * detector's, libs/shared/src/language/language-detector.ts): asked only when the record gives none.
 */
export function toImportedVideo(record: ImportRecord, languageOf: (text: string) => string): ImportedVideo {
  const id = record.id ? normalizeId(record.id) : uuidV5(record.slug!, VIDEO_ID_NAMESPACE);
  const title = record.title.trim();
  const description = (record.description ?? '').replace(/\r\n/g, '\n');
  const tags = distinctNames(record.tags);
  const media = (record.media ?? DEFAULT_MEDIA).map((name) => ({
    name,
    contentType: CONTENT_TYPES[name.split('.').pop()!.toLowerCase()] ?? 'application/octet-stream',
    // A small placeholder: the dataset has no media of its own, but deletion must find real objects.
    body: `placeholder ${name} for video ${id}\n`,
  }));
  return {
    content: {
      id,
      authorId: deriveAuthorId(record),
      title,
      description,
      tags,
      speakers: distinctNames(record.speakers),
      event: record.event?.trim() || null,
      publishedAt: parseRecordDate(record.publishedAt ?? record.recorded),
      language: record.language ?? languageOf(languageText(title, description)),
    },
    media,
  };
}
