import { ADDED_JOB_RETENTION, JobQueues } from '@app/shared/queue/job-queues.service';
import { emptyBenchData } from './lib/bench-data';
import { catalogueFile } from './lib/catalogue';
import { PATHS, peakRssSoFar, sleep, startWorker, SWEEPS, type BenchContext } from './lib/kit';
import { measuredCli, REINDEXED, type ProcessRun } from './reindex.bench';
import type { SearchBench } from './search.bench';

/** The index's two states at each size: as the import left it, under churn; merged by a reindex, quiet. */
export type IndexPhase = 'live' | 'fresh';

export interface ScaleBench {
  /** Videos of the realistic catalogue on top of the sample. */
  catalogue: number;
  /** Videos imported in all. */
  videos: number;
  /** Seconds this run took to generate the catalogue; absent when it reused the cached file (or had none). */
  generatedSeconds?: number;
  /** The sample, imported through the CLI into an empty index. */
  sampleImport: ProcessRun;
  /** The catalogue, imported through the CLI on top of the sample; absent at size 0. */
  catalogueImport?: ProcessRun;
  live: SearchBench;
  reindex: ProcessRun;
  fresh: SearchBench;
  workerPeakRssBytes: number;
  /** How long the worker took to reconcile every row against the index. */
  reconcileSeconds: number;
}

const IMPORTED = /Imported (\d+) of \d+ records in ([\d.]+) s/;

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
 * One size of the search matrix: the sample and `catalogue` videos of the realistic catalogue
 * imported through the CLI into an empty index (rates and peak memory), searched as the import
 * left it while videos are deleted and restored (`search('live')`), rebuilt by `cli reindex`
 * (which merges it), searched again with nothing else running (`search('fresh')`), and reconciled
 * row by row by a worker (its peak memory). Every size starts from empty: the live index must be
 * what imports leave (docs/performance.md, "The search matrix").
 */
export async function benchScale(
  context: BenchContext,
  catalogue: number,
  search: (phase: IndexPhase) => Promise<SearchBench>,
): Promise<ScaleBench> {
  // A realistic catalogue (bench/lib/catalogue.ts) on top of the sample. No media objects: the
  // scale run measures rows and the index; media deletion is the purge's.
  const file =
    catalogue > 0
      ? await catalogueFile(catalogue, { sample: PATHS.sample, cacheDir: PATHS.cache })
      : undefined;
  await emptyBenchData(context);
  const importing = (path: string) =>
    measuredCli(['import', path, '--no-progress', '--batch-size', '1000'], IMPORTED);
  const sampleImport = await importing(PATHS.sample);
  const catalogueImport = file ? await importing(file.path) : undefined;
  const videos = await context.videos.count();
  const live = await search('live');
  const reindex = await measuredCli(['reindex', '--no-progress'], REINDEXED);
  const fresh = await search('fresh');
  // A worker reconciles every row once they are all there: its memory must stay flat too. (Its
  // schedule is hourly, so only the walk asked for below runs.)
  const worker = await startWorker({ RECONCILE_INTERVAL_MS: '3600000' });
  try {
    const reconcileSeconds = await reconcileInWorker(context);
    return {
      catalogue,
      videos,
      ...(file?.generatedSeconds === undefined ? {} : { generatedSeconds: file.generatedSeconds }),
      sampleImport,
      ...(catalogueImport ? { catalogueImport } : {}),
      live,
      reindex,
      fresh,
      // Its high-water mark, read before it is stopped: all it did since it started.
      workerPeakRssBytes: await peakRssSoFar(worker.child.pid!),
      reconcileSeconds,
    };
  } finally {
    await worker.stop();
  }
}
