import { Queue } from 'bullmq';
import { queuePrefix, QUEUES } from '@app/shared/queue/queues';
import { bullConnection, closeRedisClient, type RedisClient } from '@app/shared/redis/redis';
import { authorRemains, followErasure } from '../erasures';
import { sampleValue } from '../observability';
import { sleep, waitForStatus } from '../processes';
import { startOwnRedisCluster } from '../redis-cluster';
import { seedVideos } from '../seed';
import { call } from '../system';
import { tally } from '../traffic';
import {
  during,
  improperAnswers,
  runDrill,
  settleAndCheck,
  startDrillLoad,
  type DrillOptions,
} from './outage-drill';
import type { ScenarioReport } from './report';

export interface RedisClusterFailoverOptions extends DrillOptions {
  /** Videos of one more author, erased for good while the primary is lost. */
  erasedVideos: number;
  /** The first `settleMs` after the failover may still see 503s. */
  settleMs: number;
  /**
   * How long the erasure, and then the deletions, may take to complete after the load; what is not
   * done by then is a violation, reported with the processes' last warnings, within the test's time.
   */
  completeWithinMs: number;
}

/** The author whose videos the scenario erases, apart from the drill's. */
const ERASED_AUTHOR = 'cluster-erased-author';

/**
 * What the maintenance queue holds (where the erasure sweep, which completes a permanent erasure,
 * is scheduled): its sweeps' schedules, next run and the jobs by state.
 */
async function maintenanceState(redisUrl: string): Promise<string> {
  const connection = bullConnection({ REDIS_URL: redisUrl, REDIS_CLUSTER: true }) as RedisClient;
  const queue = new Queue(QUEUES.maintenance, { connection, prefix: queuePrefix(QUEUES.maintenance, true) });
  try {
    const schedulers = await queue.getJobSchedulers();
    const counts = await queue.getJobCounts();
    const jobs = await queue.getJobs(['active', 'wait', 'delayed', 'failed'], 0, 20);
    const states = await Promise.all(jobs.map(async (job) => `${job.id}:${await job.getState()}`));
    return JSON.stringify({
      schedulers: schedulers.map((s) => ({ id: s.key, next: s.next, every: s.every })),
      counts,
      jobs: states,
      now: Date.now(),
    });
  } catch (error) {
    return `not read: ${String(error)}`;
  } finally {
    await queue.close();
    await closeRedisClient(connection);
  }
}

/**
 * Part 4 of the operations issue: the API and the worker on a Redis Cluster of three primaries
 * and three replicas. While deletes (soft, soft now, permanent) and searches run and an author's
 * videos are erased, the primary that holds the deletion queue's slot is killed and its replica
 * takes over. Every answer is 200 or a proper 503, every deletion and the erasure complete, each
 * purge once (one audit record each), and nothing is left half deleted.
 */
export async function redisClusterFailover(options: RedisClusterFailoverOptions): Promise<ScenarioReport> {
  const cluster = await startOwnRedisCluster();
  try {
    return await runDrill(
      // What the failover loses of the schedules is repaired within seconds, not the default minute.
      { REDIS_URL: cluster.url, REDIS_CLUSTER: 'true', SCHEDULE_CHECK_INTERVAL_MS: '5000' },
      options.videos,
      async (drill) => {
        const { context, system, bearer } = drill;
        const erasedIds = await seedVideos(context, options.erasedVideos, {
          authorId: ERASED_AUTHOR,
          title: (index) => `Erased on the cluster ${index}`,
          objectsPerVideo: 1,
        });
        // Where the deletion queue's keys are: the primary the scenario takes away.
        const deletionKey = `${queuePrefix(QUEUES.deletion, true)}:${QUEUES.deletion}:wait`;
        const load = startDrillLoad(drill, options, options.beforeMs + 5_000 + options.afterMs);

        await sleep(options.beforeMs);
        const erasure = await call<{ erasureId: string }>(
          'DELETE',
          `${system.api}/api/authors/${ERASED_AUTHOR}/videos?permanent=true`,
          bearer,
        );
        // The deletion queue's keys, all on the primary of its hash tag's slot (queuePrefix).
        const deletionPrimary = await cluster.primaryOf(deletionKey);
        const queueKeys = await cluster.keysOn(deletionPrimary, `${queuePrefix(QUEUES.deletion, true)}:*`);
        load.enter('stopping');
        const failedAt = Date.now();
        const { killed, promoted } = await cluster.killPrimaryOf(deletionKey);
        const failoverMs = Date.now() - failedAt;
        load.enter('after');
        const back = Date.now();
        await sleep(options.afterMs);
        const sent = await load.finish();

        // An erasure or a deletion that does not complete is reported with what would explain
        // it, and the drill's own checks still run.
        const lastWarnings = () =>
          system.processes
            .flatMap((running) => running.output().split('\n'))
            .filter((line) => /"level":(40|50)/.test(line))
            .slice(-20)
            .join('\n');
        const stuck: string[] = [];
        const erased =
          erasure.status === 202
            ? await followErasure(system.api, erasure.body.erasureId, bearer, {
                timeoutMs: options.completeWithinMs,
              }).catch(async (error: unknown) => {
                const { rows } = await authorRemains(context, erasedIds);
                stuck.push(
                  `${String(error)}; the author's rows by state ${JSON.stringify(rows)}; the maintenance queue ${await maintenanceState(cluster.url)}; the last warnings:\n${lastWarnings()}`,
                );
                return undefined;
              })
            : undefined;
        const settled = await settleAndCheck(drill, sent, options.completeWithinMs);
        if (settled.violations.length > 0 && stuck.length === 0)
          stuck.push(`the processes' last warnings:\n${lastWarnings()}`);
        const left = await authorRemains(context, erasedIds);
        const workerReady = await waitForStatus(`${system.workerHealth}/health/ready`, 200, 30_000).catch(
          () => false,
        );
        const afterSettle = sent.filter((s) => s.phase === 'after' && s.sentAt >= back + options.settleMs);
        const violations = [
          ...improperAnswers(sent).map(
            (s) => `neither 200 nor a proper 503: ${s.method} ${s.path} → ${s.status}`,
          ),
          ...afterSettle
            .filter((s) => s.status !== 200)
            .map(
              (s) =>
                `not 200 ${((s.sentAt - back) / 1_000).toFixed(1)} s after the failover: ${s.method} ${s.path} → ${s.status}`,
            ),
          ...(queueKeys.some((key) => key.endsWith(':delayed')) &&
          queueKeys.some((key) => key.endsWith(':meta'))
            ? []
            : [`the deletion queue's keys are not together on its slot's primary: ${queueKeys.join(', ')}`]),
          ...(erasure.status === 202 ? [] : [`erasure answered ${erasure.status}, not 202`]),
          ...stuck,
          ...(erased?.final.done === options.erasedVideos
            ? []
            : [`erasure did ${erased?.final.done ?? 0} of ${options.erasedVideos}`]),
          ...(left.audits === options.erasedVideos &&
          left.auditedOnce &&
          left.objects === 0 &&
          left.documents === 0
            ? []
            : [`erased author's videos not purged exactly once: ${JSON.stringify(left)}`]),
          ...(Object.keys(left.rows).length === 0
            ? []
            : [`erased author's rows left: ${JSON.stringify(left.rows)}`]),
          ...(workerReady === true ? [] : ['worker not ready after the failover']),
          ...settled.violations,
        ];
        const { whole } = settled;
        // What the worker repaired on its own after the failover, as its metrics count it.
        const workerMetrics = await fetch(`${system.workerHealth}/metrics`, {
          signal: AbortSignal.timeout(5_000),
        })
          .then((response) => response.text())
          .catch(() => undefined);
        const repairs = (repair: string) =>
          workerMetrics === undefined
            ? '?'
            : (sampleValue(workerMetrics, 'worker_repairs_total', { repair }) ?? 0);
        return {
          load: `${options.videos} videos; ${settled.deletes.length} deletes (soft, soft now, permanent in turn) and ${sent.length - settled.deletes.length} exact-title searches at ${options.searchRate}/s; an erasure of ${options.erasedVideos} videos`,
          faults: `Redis Cluster (3 primaries, 3 replicas): the deletion queue's primary (port ${killed}, ${queueKeys.length} of its keys) SIGKILLed; its replica (port ${promoted}) took over in ${(failoverMs / 1000).toFixed(1)} s`,
          expected:
            '200 or 503 + Retry-After while the slot moves (never 500); all 200 after; every deletion and the erasure complete, each purge once',
          observed:
            `during the failover ${tally(during(sent, 'stopping'))}; overall ${tally(sent)}; erasure ${erased?.final.done ?? 0}/${options.erasedVideos}; ` +
            `worker repairs: ${repairs('consumer_replaced')} consumers replaced, ${repairs('schedule_missing')} schedules missing and ${repairs('schedule_overdue')} overdue re-created; ` +
            `end states: ${whole.counts.untouched} untouched, ${whole.counts.soft_deleted} soft deleted, ${whole.counts.purged} purged (one audit each), ${whole.violations.length} partial; reconcile: ${settled.repair.summary}`,
          violations,
        };
      },
    );
  } finally {
    await cluster.stop();
  }
}
