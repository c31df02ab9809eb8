import { Injectable } from '@nestjs/common';
import { mediaPrefix, StorageService } from './storage.service';

/**
 * Removes every object of a video. One pass over the listing is enough: nothing writes media for
 * a video being deleted (the import skips it), and the orphan sweep catches any straggler.
 */
@Injectable()
export class StorageCleaner {
  constructor(private readonly storage: StorageService) {}

  /** Deletes everything under `videos/{id}/` in batches of up to 1,000 keys; returns how many were deleted. */
  async deleteMedia(videoId: string): Promise<number> {
    let deleted = 0;
    for await (const keys of this.storage.listKeys(mediaPrefix(videoId))) {
      await this.storage.deleteKeys(keys);
      deleted += keys.length;
    }
    return deleted;
  }
}
