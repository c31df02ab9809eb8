import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG } from '@app/shared/config/config.module';
import type { AppConfig } from '@app/shared/config/config.schema';
import { StorageCleaner } from '@app/shared/storage/storage-cleaner';
import { mediaPrefix, StorageService } from '@app/shared/storage/storage.service';
import { VideoRepository } from '@app/shared/video/video.repository';
import type { SweepHandler } from '@app/shared/queue/job-handler';

/** Deletes media whose video no longer exists: whatever slipped past a deletion is found here. */
@Injectable()
export class OrphanSweepHandler implements SweepHandler {
  private readonly logger = new Logger(OrphanSweepHandler.name);
  private readonly graceMs: number;

  constructor(
    private readonly storage: StorageService,
    private readonly cleaner: StorageCleaner,
    private readonly videos: VideoRepository,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.graceMs = config.ORPHAN_GRACE_MS;
  }

  async handle(): Promise<{ orphansDeleted: number }> {
    const cutoff = Date.now() - this.graceMs;
    let orphansDeleted = 0;
    for await (const ids of this.storage.listVideoIds()) {
      const existing = await this.videos.existingIds(ids);
      for (const id of ids.filter((candidate) => !existing.has(candidate))) {
        const newest = await this.storage.newestObjectTime(mediaPrefix(id));
        if (newest && newest.getTime() > cutoff) continue;
        // The row may have been created since the listing: check once more right before deleting.
        if ((await this.videos.existingIds([id])).size > 0) continue;
        await this.cleaner.deleteMedia(id);
        orphansDeleted += 1;
      }
    }
    if (orphansDeleted > 0) this.logger.log({ orphansDeleted }, 'orphan sweep deleted media');
    return { orphansDeleted };
  }
}
