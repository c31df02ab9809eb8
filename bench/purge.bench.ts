import { randomUUID } from 'node:crypto';
import type { Queue } from 'bullmq';
import { DeleteObjectsCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { AppConfig } from '@app/shared/config/config.schema';
import { JobQueues } from '@app/shared/queue/job-queues.service';
import { JOB_QUEUES } from '@app/shared/queue/jobs';
import { mediaPrefix } from '@app/shared/storage/storage.service';
import { ledgerKey } from '@app/shared/video/deletion-ledger.service';
import { sleep, startWorker, SWEEPS, type BenchContext } from './lib/kit';
import { closedLoop } from './lib/stats';
import { addCpu, cpuSeconds, cpuSince, type CpuSeconds } from './lib/cpu';
import { alternate } from './lib/order';

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
  }));
  const ids = contents.map((c) => c.id);
  await context.videos.upsertContent(contents);
  await context.dataSource.query(
    "UPDATE videos SET state = 'soft_deleted', deleted_at = ?, purge_at = ?, version = version + 1 WHERE id IN (?)",
    [new Date(Date.now() - 60_000), new Date(Date.now() - 1_000), ids],
  );
  await closedLoop(
    async (i) => {
      const id = ids[Math.floor(i / OBJECTS_PER_VIDEO)]!;
      await s3.send(
        new PutObjectCommand({
          Bucket: config.S3_BUCKET,
          Key: `${mediaPrefix(id)}file-${i % OBJECTS_PER_VIDEO}`,
          Body: 'x',
        }),
      );
    },
    { concurrency: 32, total: ids.length * OBJECTS_PER_VIDEO },
  );
  await context.indexWriter.indexVideos(await context.videos.findByIds(ids));
  return ids;
}

/**
 * Waits until no deletion job waits or runs, then checks MySQL (again, more slowly, while a failed
 * job waits for its retry). Polling Redis, not MySQL: a large `IN` count every few milliseconds
 * would load MySQL in the worker's rounds only, and bias the comparison. (Delayed jobs are not
 * counted: the soft-delete benchmark leaves 30-day purges behind.)
 */
async function waitUntilGone(context: BenchContext, queues: JobQueues, ids: string[]): Promise<void> {
  const deletions = queues.queue(JOB_QUEUES['delete-video']);
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
  const cpu = rounds.reduce((total: CpuSeconds, round) => addCpu(total, round.cpu), {});
  return { videos, seconds, perSecond: videos / seconds, cpu };
}

/**
 * Videos per second fully purged (objects, index document, row, audit) by a worker process,
 * against a raw script that makes the same S3, Elasticsearch and MySQL calls at the same
 * concurrency, without queue or framework.
 *
 * Elasticsearch and S3Proxy are JVMs that speed up as they warm: a first, unmeasured round of each
 * side warms them, then the measured rounds alternate (worker, raw, raw, worker…: `roundOrder`) so
 * neither side always gets the warmer or the quieter minute.
 */
export async function benchPurge(
  config: AppConfig,
  context: BenchContext,
  { videos, rounds, concurrency }: { videos: number; rounds: number; concurrency: number },
): Promise<PurgeBench> {
  const s3 = new S3Client({
    endpoint: config.S3_ENDPOINT,
    region: config.S3_REGION,
    forcePathStyle: config.S3_FORCE_PATH_STYLE,
    credentials: { accessKeyId: config.S3_ACCESS_KEY_ID, secretAccessKey: config.S3_SECRET_ACCESS_KEY },
  });
  const queues = context.get(JobQueues);
  // Jobs wait in a paused queue; a round's clock runs from the moment the worker may take them.
  const deletionQueue = queues.queue(JOB_QUEUES['delete-video']);
  await deletionQueue.pause();
  // Only the deletions are measured: the periodic sweeps and the reconciler stay out of the way.
  const worker = await startWorker({
    WORKER_CONCURRENCY: String(concurrency),
    PURGE_SWEEP_INTERVAL_MS: '86400000',
    ORPHAN_SWEEP_INTERVAL_MS: '86400000',
    RECONCILE_INTERVAL_MS: '86400000',
  });

  const viaWorker = async (count: number): Promise<PurgeRun> => {
    const ids = await dueVideos(context, s3, config, count);
    await Promise.all(ids.map((id) => queues.ensureDeletionJob(id, 0)));
    const cpu0 = cpuSeconds();
    const t0 = performance.now();
    await deletionQueue.resume();
    await waitUntilGone(context, queues, ids);
    const seconds = (performance.now() - t0) / 1000;
    const cpu = cpuSince(cpu0);
    await deletionQueue.pause();
    return { videos: count, seconds, perSecond: count / seconds, cpu };
  };

  // The raw script: the same calls, in order, per video.
  const viaRawScript = async (count: number): Promise<PurgeRun> => {
    const ids = await dueVideos(context, s3, config, count);
    const cpu0 = cpuSeconds();
    const t0 = performance.now();
    await closedLoop(
      async (i) => {
        const id = ids[i]!;
        const listed = await s3.send(
          new ListObjectsV2Command({ Bucket: config.S3_BUCKET, Prefix: mediaPrefix(id) }),
        );
        const keys = (listed.Contents ?? []).map((o) => ({ Key: o.Key! }));
        if (keys.length > 0) {
          await s3.send(
            new DeleteObjectsCommand({ Bucket: config.S3_BUCKET, Delete: { Objects: keys, Quiet: true } }),
          );
        }
        await context.engine.delete({ index: config.ELASTICSEARCH_INDEX, id }, { ignore: [404] });
        // The deletion ledger's entry, as the purge writes it before the row goes.
        await s3.send(
          new PutObjectCommand({
            Bucket: config.S3_BUCKET,
            Key: ledgerKey({ purgedAt: new Date(), video: { id } }),
            Body: JSON.stringify({ id, objectsDeleted: keys.length }),
            ContentType: 'application/json',
          }),
        );
        await context.dataSource.transaction(async (manager) => {
          await manager.query(
            "INSERT IGNORE INTO deletion_audit (video_id, author_id, reason, objects_deleted) VALUES (?, 'bench-purge', 'retention', ?)",
            [id, keys.length],
          );
          await manager.query('DELETE FROM videos WHERE id = ?', [id]);
        });
      },
      { concurrency, total: ids.length },
    );
    const seconds = (performance.now() - t0) / 1000;
    return { videos: count, seconds, perSecond: count / seconds, cpu: cpuSince(cpu0) };
  };

  try {
    // A worker's first start runs every sweep and the reconciler at once: let them finish first.
    await maintenanceSettled(queues);
    const warmUp = Math.max(50, Math.round(videos / 4));
    await viaWorker(warmUp);
    await viaRawScript(warmUp);
    const measured = await alternate(
      { worker: () => viaWorker(videos), raw: () => viaRawScript(videos) },
      rounds,
    );
    return { worker: combine(measured.worker), raw: combine(measured.raw) };
  } finally {
    await worker.stop();
    s3.destroy();
  }
}
