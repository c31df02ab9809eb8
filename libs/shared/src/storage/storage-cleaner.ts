import { Injectable } from '@nestjs/common';
import { mediaPrefix, StorageService } from './storage.service';

/** Removes every object of a video. Listing again until empty also catches objects written meanwhile. */
@Injectable()
export class StorageCleaner {
  constructor(private readonly storage: StorageService) {}

  /** Deletes everything under `videos/{id}/` in batches of up to 1,000 keys; returns how many were deleted. */
  async deleteMedia(videoId: string): Promise<number> {
    let deleted = 0;
    for (;;) {
      let round = 0;
      for await (const keys of this.storage.listKeys(mediaPrefix(videoId))) {
        await this.storage.deleteKeys(keys);
        round += keys.length;
      }
      deleted += round;
      if (round === 0) return deleted;
    }
  }
}
