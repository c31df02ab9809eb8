import { randomUUID } from 'node:crypto';
import { Cluster, Redis } from 'ioredis';
import { JobQueues } from '@app/shared/queue/job-queues.service';
import { syncJobId } from '@app/shared/queue/jobs';
import { QUEUES } from '@app/shared/queue/queues';
import { redisUrls, type RedisClient } from '@app/shared/redis/redis';
import { DAY_MS } from '@app/shared/util/time';
import { desiredWorkers, scalerMetric, workerScaler } from '../support/keda';
import { ENTRY, freePort, sleep, startProcess, type RunningProcess } from '../support/processes';
import { startOwnRedisCluster } from '../support/redis-cluster';
import { startOwnRedis } from '../support/redis-server';
import { openTestContext, type TestContext } from '../support/test-context';

/** Each step of the backlog: index repairs, an erasure's deletions, and purges due tomorrow. */
const STEP = { repairs: 150, bulkDeletions: 150, notYetDue: 50 };
const STEPS = 4;
const DRAIN_DEADLINE_MS = 120_000;

/** A Redis of the test's own, as the overlay's processes and scaler expect it: one server, or a cluster. */
interface OwnStore {
  url: string;
  clustered: boolean;
  client: RedisClient;
  stop(): Promise<void>;
}

async function ownStore(clustered: boolean): Promise<OwnStore> {
  if (!clustered) {
    const redis = await startOwnRedis();
    return { url: redis.url, clustered, client: new Redis(redis.url), stop: () => redis.stop() };
  }
  const cluster = await startOwnRedisCluster();
  const nodes = redisUrls(cluster.url).map((url) => ({ host: url.hostname, port: Number(url.port) }));
  return { url: cluster.url, clustered, client: new Cluster(nodes), stop: () => cluster.stop() };
}

/**
 * The worker's ScaledObject as committed (deploy/kubernetes/production, and its Redis Cluster
 * variant): the queues its query sums, each counted as the workers export it to Prometheus
 * (`queue_startable_jobs`), against a Redis of the test's own (a server, or a cluster of three
 * primaries) and a real worker process.
 */
describe.each([
  ['production', false],
  ['production-redis-cluster', true],
] as const)("the worker's autoscaling metric (%s)", (overlay, clustered) => {
  const scaler = workerScaler(overlay);
  let context: TestContext;
  let store: OwnStore;
  let queues: JobQueues;
  let worker: RunningProcess | undefined;

  beforeAll(async () => {
    context = await openTestContext();
    await context.reset();
    store = await ownStore(clustered);
    queues = new JobQueues({ REDIS_URL: store.url, REDIS_CLUSTER: clustered, WEBHOOK_URLS: [] });
  }, 60_000);

  afterAll(async () => {
    await worker?.stop();
    await queues?.close();
    store?.client.disconnect();
    await store?.stop();
    await context?.close();
  }, 60_000);

  it('counts exactly the ready jobs as they pile up with no worker, then falls to none as a worker drains them', async () => {
    const metric = () => scalerMetric(queues, scaler);
    expect(await metric()).toBe(0);

    const risen: number[] = [];
    for (let step = 0; step < STEPS; step += 1) {
      const ids = (count: number) => Array.from({ length: count }, () => randomUUID());
      // Index repairs wait in a list; an erasure's deletions in the prioritized set (a lower
      // priority than single deletions); a purge due tomorrow is delayed, which no worker could
      // take now, so it is not backlog. Their videos do not exist: each job is quick and harmless.
      for (const id of ids(STEP.repairs))
        await queues.add('sync-video', { videoId: id }, { jobId: syncJobId(id, 1) });
      for (const id of ids(STEP.bulkDeletions))
        await queues.ensureDeletionJob(id, 0, undefined, { bulk: true });
      for (const id of ids(STEP.notYetDue)) await queues.ensureDeletionJob(id, DAY_MS);
      risen.push(await metric());
    }
    const perStep = STEP.repairs + STEP.bulkDeletions;
    expect(risen).toEqual(Array.from({ length: STEPS }, (_, step) => (step + 1) * perStep));
    const backlog = STEPS * perStep;
    expect(desiredWorkers(backlog, scaler)).toBe(Math.min(scaler.max, Math.ceil(backlog / scaler.target)));
    // A backlog one worker clears before another could help adds none; each share past it adds one.
    expect(desiredWorkers(Math.min(backlog, scaler.target), scaler)).toBe(scaler.min);
    expect(desiredWorkers(scaler.target * 3, scaler)).toBe(Math.min(scaler.max, 3));

    worker = startProcess(ENTRY.worker, {
      REDIS_URL: store.url,
      REDIS_CLUSTER: String(clustered),
      WORKER_PORT: String(await freePort()),
      WORKER_CONCURRENCY: '2',
    });
    const fallen: number[] = [];
    const deadline = Date.now() + DRAIN_DEADLINE_MS;
    while (fallen.at(-1) !== 0) {
      if (Date.now() > deadline) {
        throw new Error(
          `the backlog was not drained within ${DRAIN_DEADLINE_MS} ms: ${fallen.join(' ')}\n${worker.output().slice(-3_000)}`,
        );
      }
      if (worker.child.exitCode !== null)
        throw new Error(`the worker exited:\n${worker.output().slice(-3_000)}`);
      fallen.push(await metric());
      await sleep(50);
    }
    // Only ever down, through values between: the metric follows the drain, job by job.
    expect(fallen.every((value, i) => i === 0 || value <= fallen[i - 1]!)).toBe(true);
    expect(fallen.some((value) => value > 0 && value < backlog)).toBe(true);
    expect(desiredWorkers(0, scaler)).toBe(scaler.min);
    // The purges not yet due are still there, and never counted.
    expect(await queues.queue(QUEUES.deletion).getDelayedCount()).toBe(STEPS * STEP.notYetDue);
  }, 180_000);
});
