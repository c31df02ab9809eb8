import { randomUUID } from 'node:crypto';
import type { Queue } from 'bullmq';
import type { S3Client } from '@aws-sdk/client-s3';
import { createPool } from 'mysql2/promise';
import type { AppConfig } from '@app/shared/config/config.schema';
import { JobQueues } from '@app/shared/queue/job-queues.service';
import { JOBS } from '@app/shared/queue/jobs';
import { freePort, PATHS, sleep, startWorker, SWEEPS, type BenchContext } from './lib/kit';
import { inspectOption, roundProfiler, selfProfiler, type RoundProfiler } from './lib/cpu-profile';
import { atLeast, cpuPer, rate, warmedUp } from './lib/figures';
import { closedLoop } from './lib/stats';
import { totalCpu, withCpu, type CpuSeconds } from './lib/cpu';
import { runBeside, warmAlternating, type Alongside } from './lib/load';
import { putMedia, rawS3Client } from './lib/media';
import { alternate, mapSides } from './lib/order';
import type { Step } from './lib/step';
import type { Settled } from './lib/warm-up';
import { profileDiffTable, profileTable, writeProfiles, type Profiled } from './profile-table';
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

/** `count` videos purged by `purge`: how long it took, and the CPU each part used. */
function timed(count: number, purge: () => Promise<void>): Promise<PurgeRun> {
  return withCpu(async () => {
    const t0 = performance.now();
    await purge();
    const seconds = (performance.now() - t0) / 1000;
    return { videos: count, seconds, perSecond: count / seconds };
  });
}

/** Adds up rounds of one side: total videos over total seconds, CPU summed per part. */
function combine(rounds: PurgeRun[]): PurgeRun {
  const videos = rounds.reduce((n, r) => n + r.videos, 0);
  const seconds = rounds.reduce((n, r) => n + r.seconds, 0);
  return { videos, seconds, perSecond: videos / seconds, cpu: totalCpu(rounds) };
}

/** Deletion jobs the worker runs at once, and the raw script's concurrency; rounds even, so that `roundOrder` balances them. */
const settings = (quick: boolean) => ({ concurrency: 8, rounds: quick ? 2 : 4 });

/**
 * Videos per second fully purged by a worker process, against a raw script making the same writes
 * (`rawPurge`): the contract asks every purge for its claim and both events (docs/contract.md
 * §10.4), so a script without them is not a purge. Unmeasured rounds of both sides until
 * Elasticsearch's JIT compiler has settled and the worker has run a few rounds of jobs, then
 * alternating ones. With `--profile`, the worker's CPU and the raw script's (this process's) are
 * profiled in their measured rounds.
 */
export const purgeStep: Step<{ purge: PurgeBench }> = {
  name: 'purge',
  measures:
    'a worker process taking the deletion jobs (objects, document, ledger, row, audit, events), concurrency 8',
  baseline:
    'a raw script making the same writes with plain mysql2, AWS SDK and Elasticsearch clients (bench/raw-purge.ts)',
  data: 'sample',
  async run({ config, context, quick, profile, probe }) {
    const { concurrency, rounds } = settings(quick);
    const videos = quick ? 300 : 600;
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
    // The raw script: the same writes, in order, per video, through plain clients.
    const pool = createPool({ uri: config.DATABASE_URL, timezone: 'Z', connectionLimit: 10 });
    const raw = {
      pool,
      s3,
      engine: context.engine,
      bucket: config.S3_BUCKET,
      index: config.ELASTICSEARCH_INDEX,
    };
    /** One round of the worker's; `alongside` (its profiler) runs while it purges. */
    const viaWorker = async (alongside?: Alongside): Promise<PurgeRun> => {
      const ids = await dueVideos(context, s3, config, videos);
      await Promise.all(ids.map((id) => queues.ensureDeletionJob(id, 0)));
      const run = await runBeside(alongside, () =>
        timed(videos, async () => {
          await deletionQueue.resume();
          await waitUntilGone(context, queues, ids);
        }),
      );
      await deletionQueue.pause();
      return run;
    };
    /** One round of the script's; `alongside` (its profiler, in this process) runs while it purges. */
    const viaRawScript = async (alongside?: Alongside): Promise<PurgeRun> => {
      const ids = await dueVideos(context, s3, config, videos);
      return runBeside(alongside, () =>
        timed(videos, async () => {
          const run = await closedLoop((i) => rawPurge(raw, ids[i]!), { concurrency, total: ids.length });
          if (run.errors > 0)
            throw new Error(`the raw script failed to purge ${run.errors} of ${videos} videos`);
        }),
      );
    };
    const profilers: { worker?: RoundProfiler; raw?: RoundProfiler } = {};
    try {
      if (inspector) profilers.worker = await roundProfiler(inspector);
      if (profile) profilers.raw = await selfProfiler();
      // A worker's first start runs every sweep and the reconciler at once: let them finish first.
      while (!(await idle(queues.queue(SWEEPS['reconcile-index'].queue)))) await sleep(100);
      const sides = (alongside: { worker?: Alongside; raw?: Alongside } = {}) => ({
        worker: () => viaWorker(alongside.worker),
        raw: () => viaRawScript(alongside.raw),
      });
      const warmUp = await warmAlternating(sides(), {
        minRounds: 3,
        minSeconds: quick ? 20 : 40,
        maxSeconds: quick ? 90 : 300,
      });
      const measured = await alternate(
        sides({ worker: profilers.worker?.alongside, raw: profilers.raw?.alongside }),
        rounds,
      );
      const purge = { ...mapSides(measured, combine), warmUp };
      if (profilers.worker && profilers.raw) {
        const side = (label: string, run: PurgeRun, process: Profiled['process'], of: RoundProfiler) => {
          const profiled = { run: { cpu: run.cpu, requests: run.videos }, process, per: 'purge' };
          const files = writeProfiles(of.profiles, PATHS.cache, { process, name: 'purge' });
          probe(profileTable(profiled, of.profiles, 'purge', files));
          return { label, profiled, profiles: of.profiles };
        };
        probe(
          profileDiffTable('The purge, the worker against the raw script', [
            side('worker', purge.worker, 'worker', profilers.worker),
            side('raw script', purge.raw, 'bench', profilers.raw),
          ]),
        );
      }
      return { purge };
    } finally {
      profilers.worker?.close();
      profilers.raw?.close();
      await worker.stop();
      await pool.end();
      s3.destroy();
    }
  },
  report({ purge }, { quick }) {
    const { concurrency, rounds } = settings(quick);
    const line = (name: string, run: PurgeRun, node: string) => [
      name,
      run.videos,
      run.seconds.toFixed(2),
      rate(run.perSecond),
      cpuPer(run.cpu, run.videos, [node, 'elasticsearch', 'mysql', 's3proxy', 'redis']),
    ];
    return {
      tables: [
        {
          title:
            `Purge end to end (objects, document, row, audit; 2 objects per video; concurrency ${concurrency}; ${rounds} alternating rounds each, a b b a…, ` +
            `${warmedUp(purge.warmUp)})`,
          header: [
            'system',
            'videos',
            'seconds',
            'videos/s',
            'CPU ms per video: Node / ES (of it JIT compiler) / MySQL / S3Proxy / Redis',
          ],
          rows: [
            line('worker process (BullMQ jobs)', purge.worker, 'worker'),
            line('raw script, same writes (bench/raw-purge.ts)', purge.raw, 'bench'),
          ],
        },
      ],
      targets: [
        atLeast('purge rate, worker / raw script', purge.worker.perSecond / purge.raw.perSecond, 0.8),
      ],
    };
  },
};
