import { randomUUID } from 'node:crypto';
import { StorageCleaner } from '@app/shared/storage/storage-cleaner';
import { mergeMeasured, withCpu, type MeasuredRun } from './lib/cpu';
import { atLeast, count, cpuPer, row } from './lib/figures';
import { putMedia, rawDeleteMedia, rawS3Client } from './lib/media';
import { alternate, mapSides } from './lib/order';
import type { Step } from './lib/step';
import { timedLoop } from './lib/stats';

export interface MediaCleanupBench {
  videos: number;
  objectsPerVideo: number;
  cleaner: MeasuredRun;
  raw: MeasuredRun;
}

/** The purge's concurrency; rounds even, so that `roundOrder` balances them. */
const settings = (quick: boolean) => ({ concurrency: 8, rounds: quick ? 2 : 4 });

/**
 * A permanent deletion's storage cleanup alone: the product's `StorageCleaner.deleteMedia` (one
 * listing per video, the keys of concurrent deletions sent together in DeleteObjects requests of
 * up to 1,000 keys) against a script's ListObjectsV2 + DeleteObjects per video with the AWS SDK,
 * at the same concurrency, in this process, on videos of 2 objects each (put afresh before every
 * round, outside its clock). One unmeasured round of each side, then alternating ones (a b b a…).
 * A video that does not lose exactly its objects counts as an error.
 */
export const mediaCleanupStep: Step<{ mediaCleanup: MediaCleanupBench }> = {
  name: 'media-cleanup',
  measures:
    "a permanent deletion's media alone: StorageCleaner.deleteMedia, videos of 2 objects, concurrency 8",
  baseline: 'ListObjectsV2 + DeleteObjects per video with the AWS SDK, concurrency 8',
  data: 'own',
  async run({ config, context, quick }) {
    const { concurrency, rounds } = settings(quick);
    const videos = quick ? 500 : 2_000;
    const objectsPerVideo = 2;
    const s3 = rawS3Client(config);
    const storage = context.get(StorageCleaner);
    const round = (deleteMedia: (id: string) => Promise<number>) => async () => {
      const ids = Array.from({ length: videos }, () => randomUUID());
      await putMedia(s3, config, ids, objectsPerVideo);
      return withCpu(() =>
        timedLoop(
          async (i) => {
            const deleted = await deleteMedia(ids[i]!);
            if (deleted !== objectsPerVideo)
              throw new Error(`${deleted} of ${objectsPerVideo} objects deleted`);
          },
          { concurrency, total: ids.length },
        ),
      );
    };
    const sides = {
      cleaner: round((id) => storage.deleteMedia(id)),
      raw: round((id) => rawDeleteMedia(s3, config.S3_BUCKET, id)),
    };
    try {
      await alternate(sides, 1);
      const measured = await alternate(sides, rounds);
      return { mediaCleanup: { videos, objectsPerVideo, ...mapSides(measured, mergeMeasured) } };
    } finally {
      s3.destroy();
    }
  },
  report({ mediaCleanup: cleanup }, { quick }) {
    const { concurrency, rounds } = settings(quick);
    const line = (name: string, run: MeasuredRun) => [
      ...row(name, run),
      cpuPer(run.cpu, run.requests, ['bench', 's3proxy']),
    ];
    return {
      tables: [
        {
          title: `Permanent delete's storage cleanup alone (${count(cleanup.videos)} videos of ${cleanup.objectsPerVideo} objects each, concurrency ${concurrency}; ${rounds} alternating rounds each, a b b a…, after a warm-up)`,
          header: [
            'system',
            'videos/s',
            'p50 ms',
            'p99 ms',
            'videos',
            'errors',
            'CPU ms per video: Node / S3Proxy',
          ],
          rows: [
            line('StorageCleaner.deleteMedia (listing, shared DeleteObjects)', cleanup.cleaner),
            line('raw script: ListObjectsV2 + DeleteObjects per video', cleanup.raw),
          ],
        },
      ],
      targets: [
        atLeast(
          'media cleanup rate, storage cleaner / raw S3 calls',
          cleanup.cleaner.perSecond / cleanup.raw.perSecond,
          0.8,
        ),
      ],
    };
  },
};
