import { Injectable } from '@nestjs/common';
import { CoalescingBatcher } from '../util/coalescing-batcher';
import { mediaPrefix, StorageService } from './storage.service';

/** S3 takes at most this many keys in one DeleteObjects request. */
const KEYS_PER_REQUEST = 1_000;

/**
 * Removes every object of a video. One pass over the listing is enough: nothing writes media for
 * a video being deleted (the import skips it), and the orphan sweep catches any straggler.
 */
@Injectable()
export class StorageCleaner {
  /** The keys of concurrent deletions leave together, up to 1,000 per request. */
  private readonly deletions = new CoalescingBatcher<string[]>((pages) => this.deleteTogether(pages));

  constructor(private readonly storage: StorageService) {}

  /** Deletes everything under `videos/{id}/`; returns how many objects were deleted. */
  async deleteMedia(videoId: string): Promise<number> {
    let deleted = 0;
    for await (const keys of this.storage.listKeys(mediaPrefix(videoId))) {
      await this.deletions.add(keys);
      deleted += keys.length;
    }
    return deleted;
  }

  /** One DeleteObjects per 1,000 keys of all the pages; a page fails when any of its keys did. */
  private async deleteTogether(pages: string[][]): Promise<(Error | undefined)[]> {
    const keys = pages.flat();
    const failed = new Map<string, string>();
    for (let start = 0; start < keys.length; start += KEYS_PER_REQUEST) {
      const chunk = await this.storage.tryDeleteKeys(keys.slice(start, start + KEYS_PER_REQUEST));
      for (const [key, code] of chunk) failed.set(key, code);
    }
    return pages.map((page) => {
      const first = page.find((key) => failed.has(key));
      return first === undefined
        ? undefined
        : new Error(`DeleteObjects failed for ${first}: ${failed.get(first)!}`);
    });
  }
}
