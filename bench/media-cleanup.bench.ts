import { randomUUID } from 'node:crypto';
import type { AppConfig } from '@app/shared/config/config.schema';
import { StorageCleaner } from '@app/shared/storage/storage-cleaner';
import type { BenchContext } from './lib/kit';
import { cpuSeconds, cpuSince, mergeMeasured, type MeasuredRun } from './lib/cpu';
import { putMedia, rawDeleteMedia, rawS3Client } from './lib/media';
import { alternate } from './lib/order';
import { timedLoop } from './lib/stats';

export interface MediaCleanupBench {
  videos: number;
  objectsPerVideo: number;
  cleaner: MeasuredRun;
  raw: MeasuredRun;
}

/**
 * A permanent deletion's storage cleanup alone: the product's `StorageCleaner.deleteMedia` (one
 * listing per video, the keys of concurrent deletions sent together in DeleteObjects requests of
 * up to 1,000 keys) against a script's ListObjectsV2 + DeleteObjects per video with the AWS SDK,
 * at the same concurrency, in this process, on videos of `objectsPerVideo` objects each (put
 * afresh before every round, outside its clock). One unmeasured round of each side, then `rounds`
 * alternating ones (a b b a…). A video that does not lose exactly its objects counts as an error.
 */
export async function benchMediaCleanup(
  config: AppConfig,
  context: BenchContext,
  {
    videos,
    objectsPerVideo,
    rounds,
    concurrency,
  }: { videos: number; objectsPerVideo: number; rounds: number; concurrency: number },
): Promise<MediaCleanupBench> {
  const s3 = rawS3Client(config);
  const cleaner = context.get(StorageCleaner);
  const round = (deleteMedia: (id: string) => Promise<number>) => async () => {
    const ids = Array.from({ length: videos }, () => randomUUID());
    await putMedia(s3, config, ids, objectsPerVideo);
    const cpu0 = cpuSeconds();
    const run = await timedLoop(
      async (i) => {
        const deleted = await deleteMedia(ids[i]!);
        if (deleted !== objectsPerVideo) throw new Error(`${deleted} of ${objectsPerVideo} objects deleted`);
      },
      { concurrency, total: ids.length },
    );
    return { ...run, cpu: cpuSince(cpu0) };
  };
  const sides = {
    cleaner: round((id) => cleaner.deleteMedia(id)),
    raw: round((id) => rawDeleteMedia(s3, config.S3_BUCKET, id)),
  };
  try {
    await alternate(sides, 1);
    const measured = await alternate(sides, rounds);
    return {
      videos,
      objectsPerVideo,
      cleaner: mergeMeasured(measured.cleaner),
      raw: mergeMeasured(measured.raw),
    };
  } finally {
    s3.destroy();
  }
}
