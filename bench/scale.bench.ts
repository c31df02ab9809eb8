import { ADDED_JOB_RETENTION, JobQueues } from '@app/shared/queue/job-queues.service';
import { catalogueFile } from './lib/catalogue';
import { PATHS, peakRssSoFar, sleep, startWorker, SWEEPS, type BenchContext } from './lib/kit';
import { measuredCli, REINDEXED, type ProcessRun } from './reindex.bench';

export interface ScaleBench {
  videos: number;
  /** Seconds this run took to generate the catalogue; absent when it reused the cached file. */
  generatedSeconds?: number;
  import: ProcessRun;
  reindex: ProcessRun;
  workerPeakRssBytes: number;
  /** How long the worker took to reconcile every row against the index. */
  reconcileSeconds: number;
}

/** Has the worker reconcile the whole index against MySQL (a `reconcile-index` job) and waits for it. */
async function reconcileInWorker(context: BenchContext): Promise<number> {
  const queue = context.get(JobQueues).queue(SWEEPS['reconcile-index'].queue);
  const started = performance.now();
  const jobId = `bench-reconcile-${Date.now()}`;
  await queue.add('reconcile-index', {}, { ...ADDED_JOB_RETENTION, jobId });
  const job = await queue.getJob(jobId);
  if (!job) throw new Error('the reconcile job was not queued');
  for (;;) {
    const state = await job.getState();
    if (state === 'completed') return (performance.now() - started) / 1000;
    if (state === 'failed') throw new Error(`reconcile failed: ${job.failedReason ?? ''}`);
    await sleep(1_000);
  }
}

/**
 * Imports `count` videos of the realistic catalogue through the CLI, rebuilds the index from MySQL,
 * and has a worker reconcile every row: rates and peak memory at scale. The search comparison then
 * runs on the index this leaves (search.bench.ts).
 */
export async function benchScale(context: BenchContext, count: number): Promise<ScaleBench> {
  // A realistic catalogue (bench/lib/catalogue.ts), on top of the sample already imported. No
  // media objects: the scale run measures rows and the index; media deletion is the purge's.
  const { path: file, generatedSeconds } = await catalogueFile(count, {
    sample: PATHS.sample,
    cacheDir: PATHS.cache,
  });
  // A worker runs throughout, and walks every row with the reconciler once they are all there:
  // its memory must stay flat too. (Its schedule is hourly, so only the walk asked for below runs.)
  const worker = await startWorker({ RECONCILE_INTERVAL_MS: '3600000' });
  try {
    const imported = await measuredCli(
      ['import', file, '--no-progress', '--batch-size', '1000'],
      /Imported (\d+) of \d+ records in ([\d.]+) s/,
    );
    const reindexed = await measuredCli(['reindex', '--no-progress'], REINDEXED);

    const reconcileSeconds = await reconcileInWorker(context);
    return {
      videos: await context.videos.count(),
      generatedSeconds,
      import: imported,
      reindex: reindexed,
      // Its high-water mark, read before it is stopped: all it did since it started.
      workerPeakRssBytes: await peakRssSoFar(worker.child.pid!),
      reconcileSeconds,
    };
  } finally {
    await worker.stop();
  }
}
