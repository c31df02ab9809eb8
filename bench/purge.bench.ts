import { randomUUID } from 'node:crypto';
import type { Queue } from 'bullmq';
import type { S3Client } from '@aws-sdk/client-s3';
import { createPool } from 'mysql2/promise';
import type { AppConfig } from '@app/shared/config/config.schema';
import { JobQueues } from '@app/shared/queue/job-queues.service';
import { JOBS } from '@app/shared/queue/jobs';
import { freePort, sleep, startWorker, SWEEPS, type BenchContext } from './lib/kit';
import {
  inspectOption,
  roundProfiler,
  selfProfiler,
  type CpuProfile,
  type RoundProfiler,
} from './lib/cpu-profile';
import { closedLoop } from './lib/stats';
import { cpuSeconds, cpuSince, totalCpu, type CpuSeconds } from './lib/cpu';
import { runBeside, warmAlternating, type Alongside } from './lib/load';
import { putMedia, rawS3Client } from './lib/media';
import { alternate } from './lib/order';
import type { Settled } from './lib/warm-up';
import { rawPurge } from './raw-purge';

interface PurgeRun {
  videos: number;
  seconds: number;
  perSecond: number;
  /** CPU seconds each part of the system used during the run: where the time goes. */
  cpu: CpuSeconds;
}

export interface PurgeBench {
  worker: PurgeRun;
  raw: PurgeRun;
  /** The unmeasured alternating rounds before the measured ones. */
  warmUp: Settled;
  /** With `profile`: the worker's and the raw script's CPU profiles of their measured rounds. */
  profiles?: { worker: CpuProfile[]; raw: CpuProfile[] };
}

const OBJECTS_PER_VIDEO = 2;

/** Videos due for purge: rows soft-deleted in the past, their media and index documents. */
async function dueVideos(
  context: BenchContext,
  s3: S3Client,
  config: AppConfig,
  count: number,
): Promise<string[]> {
  const contents = Array.from({ length: count }, (_, i) => ({
    id: randomUUID(),
    authorId: 'bench-purge',
    title: `Purge benchmark video ${i}`,
    description: 'to be purged',
    tags: [],
    speakers: [],
    event: null,
    publishedAt: new Date(),
    language: 'eng',
  }));
  const ids = contents.map((c) => c.id);
  await context.videos.upsertContent(contents);
  await context.dataSource.query(
    `UPDATE videos SET state = 'soft_deleted', deleted_at = ?, purge_at = ?, deletion_reason = 'retention',
       deletion_requested_by = 'bench', version = version + 1 WHERE id IN (?)`,
    [new Date(Date.now() - 60_000), new Date(Date.now() - 1_000), ids],
  );
  await putMedia(s3, config, ids, OBJECTS_PER_VIDEO);
  await context.indexWriter.indexVideos(await context.videos.findByIds(ids));
  return ids;
}

/**
 * Waits until no deletion job waits or runs, then checks MySQL (again, more slowly, while a failed
 * job waits for its retry). Polling Redis, not MySQL: a large `IN` count every few milliseconds
 * would load MySQL in the worker's rounds only, and bias the comparison.
 */
async function waitUntilGone(context: BenchContext, queues: JobQueues, ids: string[]): Promise<void> {
  const deletions = queues.queue(JOBS['delete-video'].queue);
  for (;;) {
    let pauseMs = 20;
    if (await idle(deletions)) {
      const rows: { n: string }[] = await context.dataSource.query(
        'SELECT COUNT(*) AS n FROM videos WHERE id IN (?)',
        [ids],
      );
      if (Number(rows[0]!.n) === 0) return;
      pauseMs = 500;
    }
    await sleep(pauseMs);
  }
}

/** No job of the queue is waiting or running (delayed ones may be). */
async function idle(queue: Queue): Promise<boolean> {
  const counts = await queue.getJobCounts('waiting', 'active', 'prioritized');
  return Object.values(counts).every((n) => n === 0);
}

/** Waits until no sweep or reconcile job is waiting or running (the next ones are delayed). */
async function maintenanceSettled(queues: JobQueues): Promise<void> {
  while (!(await idle(queues.queue(SWEEPS['reconcile-index'].queue)))) await sleep(100);
}

/** Adds up rounds of one side: total videos over total seconds, CPU summed per part. */
function combine(rounds: PurgeRun[]): PurgeRun {
  const videos = rounds.reduce((n, r) => n + r.videos, 0);
  const seconds = rounds.reduce((n, r) => n + r.seconds, 0);
  return { videos, seconds, perSecond: videos / seconds, cpu: totalCpu(rounds) };
}

/**
 * Videos per second fully purged (objects, index document, row, audit, events) by a worker
 * process, against a raw script that makes the same writes (`rawPurge`) at the same concurrency,
 * without queue or framework. The contract asks every purge for its claim and both events
 * (docs/contract.md §10.4), so the script writes them too: a script without them is not a purge.
 *
 * Elasticsearch and S3Proxy are JVMs that speed up as they warm: unmeasured rounds of both sides
 * run until Elasticsearch's JIT compiler has settled and the worker has run a few rounds of jobs
 * (`warmUntilSettled`, within `warmUpSeconds`), then the measured rounds alternate (worker, raw, raw, worker…: `roundOrder`) so neither side
 * always gets the warmer or the quieter minute.
 */
export async function benchPurge(
  config: AppConfig,
  context: BenchContext,
  {
    videos,
    rounds,
    concurrency,
    warmUpSeconds,
    profile = false,
  }: {
    videos: number;
    rounds: number;
    concurrency: number;
    warmUpSeconds: { min: number; max: number };
    /** Profile the worker's CPU in its measured rounds (a probe: sampling costs it CPU). */
    profile?: boolean;
  },
): Promise<PurgeBench> {
  const s3 = rawS3Client(config);
  const queues = context.get(JobQueues);
  // Jobs wait in a paused queue; a round's clock runs from the moment the worker may take them.
  const deletionQueue = queues.queue(JOBS['delete-video'].queue);
  await deletionQueue.pause();
  const inspector = profile ? await freePort() : undefined;
  // Only the deletions are measured: the periodic sweeps and the reconciler stay out of the way.
  const worker = await startWorker({
    WORKER_CONCURRENCY: String(concurrency),
    PURGE_SWEEP_INTERVAL_MS: '86400000',
    ORPHAN_SWEEP_INTERVAL_MS: '86400000',
    RECONCILE_INTERVAL_MS: '86400000',
    ...(inspector ? { NODE_OPTIONS: inspectOption(inspector) } : {}),
  });
  let profiler: RoundProfiler | undefined;

  /** One round of the worker's; `alongside` (its profiler) runs while it purges. */
  const viaWorker = async (count: number, alongside?: Alongside): Promise<PurgeRun> => {
    const ids = await dueVideos(context, s3, config, count);
    await Promise.all(ids.map((id) => queues.ensureDeletionJob(id, 0)));
    const run = await runBeside(alongside, async (): Promise<PurgeRun> => {
      const cpu0 = cpuSeconds();
      const t0 = performance.now();
      await deletionQueue.resume();
      await waitUntilGone(context, queues, ids);
      const seconds = (performance.now() - t0) / 1000;
      return { videos: count, seconds, perSecond: count / seconds, cpu: cpuSince(cpu0) };
    });
    await deletionQueue.pause();
    return run;
  };

  // The raw script: the same writes, in order, per video, through plain clients.
  const pool = createPool({ uri: config.DATABASE_URL, timezone: 'Z', connectionLimit: 10 });
  const raw = {
    pool,
    s3,
    engine: context.engine,
    bucket: config.S3_BUCKET,
    index: config.ELASTICSEARCH_INDEX,
  };
  /** One round of the script's; `alongside` (its profiler, in this process) runs while it purges. */
  const viaRawScript = async (count: number, alongside?: Alongside): Promise<PurgeRun> => {
    const ids = await dueVideos(context, s3, config, count);
    return runBeside(alongside, async (): Promise<PurgeRun> => {
      const cpu0 = cpuSeconds();
      const t0 = performance.now();
      const run = await closedLoop((i) => rawPurge(raw, ids[i]!), { concurrency, total: ids.length });
      const seconds = (performance.now() - t0) / 1000;
      if (run.errors > 0) throw new Error(`the raw script failed to purge ${run.errors} of ${count} videos`);
      return { videos: count, seconds, perSecond: count / seconds, cpu: cpuSince(cpu0) };
    });
  };
  let rawProfiler: RoundProfiler | undefined;

  try {
    profiler = inspector ? await roundProfiler(inspector) : undefined;
    rawProfiler = profile ? await selfProfiler() : undefined;
    // A worker's first start runs every sweep and the reconciler at once: let them finish first.
    await maintenanceSettled(queues);
    const sides = (profilers?: { worker?: Alongside; raw?: Alongside }) => ({
      worker: () => viaWorker(videos, profilers?.worker),
      raw: () => viaRawScript(videos, profilers?.raw),
    });
    const warmUp = await warmAlternating(sides(), {
      minRounds: 3,
      minSeconds: warmUpSeconds.min,
      maxSeconds: warmUpSeconds.max,
      settledJitShare: 0.01,
    });
    const measured = await alternate(
      sides({ worker: profiler?.alongside, raw: rawProfiler?.alongside }),
      rounds,
    );
    return {
      worker: combine(measured.worker),
      raw: combine(measured.raw),
      warmUp,
      ...(profiler && rawProfiler
        ? { profiles: { worker: profiler.profiles, raw: rawProfiler.profiles } }
        : {}),
    };
  } finally {
    profiler?.close();
    rawProfiler?.close();
    await worker.stop();
    await pool.end();
    s3.destroy();
  }
}
