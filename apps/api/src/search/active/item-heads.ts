import { LRUCache } from 'lru-cache';
import type { VideoSummary } from '@app/shared/video/video.repository';

/** A search item without its score, as JSON bytes: `{"id":…,"tags":[…],"score":` (score and `}` follow). */
export type ItemHead = Buffer;

/** Bytes a cached head costs beyond its JSON: the key, the entry and the LRU's bookkeeping. */
const ENTRY_OVERHEAD = 160;

/** Renders what a search shows of a video, up to its score. The keys are those of docs/contract.md §7. */
export function renderItemHead(video: VideoSummary): ItemHead {
  const item = {
    id: video.id,
    title: video.title,
    description: video.description,
    authorId: video.authorId,
    speakers: video.speakers,
    event: video.event,
    publishedAt: video.publishedAt ? video.publishedAt.toISOString() : null,
    tags: video.tags,
    language: video.language,
  };
  return Buffer.from(`${JSON.stringify(item).slice(0, -1)},"score":`);
}

/**
 * Rendered item heads of videos, each with the time it was read, least recently used out first,
 * within a byte budget. What may be kept, and for how long, is `ActiveVideos`' to decide.
 */
export class ItemHeadCache {
  private readonly heads: LRUCache<string, { readAt: number; head: ItemHead }> | null;

  constructor(maxBytes: number) {
    this.heads =
      maxBytes > 0
        ? new LRUCache({ maxSize: maxBytes, sizeCalculation: (entry) => entry.head.length + ENTRY_OVERHEAD })
        : null;
  }

  /** The video's head, if one read at `notBefore` or later is kept. */
  get(id: string, notBefore: number): ItemHead | undefined {
    const entry = this.heads?.get(id);
    return entry && entry.readAt >= notBefore ? entry.head : undefined;
  }

  /** Keeps a head read at `readAt` (a head larger than the whole budget is not kept). */
  keep(id: string, head: ItemHead, readAt: number): void {
    this.heads?.set(id, { readAt, head });
  }

  drop(id: string): void {
    this.heads?.delete(id);
  }

  clear(): void {
    this.heads?.clear();
  }

  /** Bytes the cache holds, as the budget counts them. */
  get size(): number {
    return this.heads?.calculatedSize ?? 0;
  }
}
