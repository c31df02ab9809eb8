import { JobQueues } from '@app/shared/queue/job-queues.service';
import type { ErasureBody } from '../erasures';
import { waitFor } from '../processes';
import { startOwnRedis } from '../redis-server';
import { seedMany } from '../seed';
import { call, startSystem, token, type System } from '../system';
import { openTestContext } from '../test-context';
import type { ScenarioReport } from './report';

export interface ErasuresBesidePurgesOptions {
  /** Authors erased at once (permanent=true), each with `videosPerErasure` videos. */
  erasures: number;
  videosPerErasure: number;
  /** Soft-deleted videos whose purge falls due while the erasures' deletions wait. */
  purges: number;
  /** The first purge falls due this long after the erasures' first deletion… */
  firstPurgeAfterMs: number;
  /** …and the last this long after the first. */
  purgeSpreadMs: number;
  /** The goal for each purge: done within this long of its purge date. Checked only when given (the chaos row). */
  maxLagMs?: number;
  timeoutMs: number;
}

const PURGE_OWNER = 'purge-owner';
const erasedAuthor = (n: number) => `erased-author-${n}`;

/**
 * Large permanent erasures beside a stream of purges falling due (issue 29): the erasures walk on
 * their own queue and their thousands of deletions wait behind every purge that is due, so each
 * purge completes soon after its date. Checked in MySQL's audit records: each purge's delay
 * (`purged_at` − `purge_at`), and how many of the erasures' deletions finished between a purge's
 * date and its own end (overtaken: what it waited behind, bounded by the deletion slots, not by
 * the erasures' size). Purges must fall due while erasure deletions still wait, or nothing was shown.
 */
export async function erasuresBesidePurges(options: ErasuresBesidePurgesOptions): Promise<ScenarioReport> {
  const redis = await startOwnRedis();
  const env = { REDIS_URL: redis.url, PURGE_SWEEP_INTERVAL_MS: '5000', SCHEDULE_CHECK_INTERVAL_MS: '5000' };
  // On the system's Redis: the purges' jobs are queued there.
  const context = await openTestContext(env);
  const queues = context.get(JobQueues);
  const admin = token('erasure-admin', ['admin']);
  const violations: string[] = [];
  // Only these authors' records count: a test before may still finish a purge of its own after the reset.
  const authors = [PURGE_OWNER, ...Array.from({ length: options.erasures }, (_, n) => erasedAuthor(n))];
  let system: System | undefined;
  try {
    // Emptied before the system starts: a worker replays the deletion ledger at its start, and a
    // replay racing the reset brought an earlier run's audit records back.
    await context.reset();
    system = await startSystem(env);
    const seeded = performance.now();
    const erased: string[] = [];
    for (let n = 0; n < options.erasures; n += 1) {
      erased.push(
        ...(await seedMany(context, options.videosPerErasure, {
          authorId: erasedAuthor(n),
          objectsPerVideo: 1,
        })),
      );
    }
    const purged = await seedMany(context, options.purges, { authorId: PURGE_OWNER, objectsPerVideo: 1 });
    const seedSeconds = (performance.now() - seeded) / 1000;

    for (let n = 0; n < options.erasures; n += 1) {
      const asked = await call<{ videos: number }>(
        'DELETE',
        `${system.api}/api/authors/${erasedAuthor(n)}/videos?permanent=true`,
        admin,
      );
      if (asked.status !== 202 || asked.body.videos !== options.videosPerErasure) {
        violations.push(`erasure ${n} not accepted as asked: ${asked.status} ${JSON.stringify(asked.body)}`);
      }
    }

    // The purges fall due once the erasures' deletions are under way, never before: counted from a
    // fixed start, a fast machine finished the erasures before the last purge was due.
    await waitFor(
      "the erasures' deletions under way",
      async () => {
        const [row] = await context.dataSource.query<{ n: string }[]>(
          'SELECT COUNT(*) AS n FROM deletion_audit WHERE author_id IN (?)',
          [authors.slice(1)],
        );
        return Number(row!.n) > 0 ? true : undefined;
      },
      { timeoutMs: options.timeoutMs, intervalMs: 50 },
    );
    // The purges: soft-deleted now, each due at its own time from now, with the delayed job a soft delete adds.
    const first = Date.now() + options.firstPurgeAfterMs;
    const step = options.purges > 1 ? options.purgeSpreadMs / (options.purges - 1) : 0;
    const purgeAt = new Map(purged.map((id, n) => [id, new Date(first + Math.round(n * step))]));
    await context.dataSource.transaction(async (manager) => {
      for (const [id, at] of purgeAt) {
        await manager.query(
          `UPDATE videos SET state = 'soft_deleted', deleted_at = ?, purge_at = ?, deletion_reason = 'retention',
             deletion_requested_by = ?, version = version + 1 WHERE id = ?`,
          [new Date(), at, PURGE_OWNER, id],
        );
      }
    });
    for (const [id, at] of purgeAt) await queues.ensureDeletionJob(id, at.getTime() - Date.now());

    const everything = options.erasures * options.videosPerErasure + options.purges;
    await waitFor(
      'every purge and every erasure done',
      async () => {
        const [row] = await context.dataSource.query<{ audits: string; open: string }[]>(
          `SELECT (SELECT COUNT(*) FROM deletion_audit WHERE author_id IN (?)) AS audits,
             (SELECT COUNT(*) FROM erasures WHERE state <> 'completed') AS open`,
          [authors],
        );
        return Number(row!.audits) === everything && Number(row!.open) === 0 ? true : undefined;
      },
      { timeoutMs: options.timeoutMs, intervalMs: 1_000 },
    ).catch((error: unknown) => violations.push(String(error)));

    const audits = await context.dataSource.query<
      { video_id: string; author_id: string; purge_at: Date | null; purged_at: Date }[]
    >('SELECT video_id, author_id, purge_at, purged_at FROM deletion_audit WHERE author_id IN (?)', [
      authors,
    ]);
    const byVideo = new Map(audits.map((audit) => [audit.video_id, audit]));
    const erasurePurges = audits
      .filter((audit) => audit.author_id !== PURGE_OWNER)
      .map((audit) => audit.purged_at.getTime())
      .sort((a, b) => a - b);
    const lags: number[] = [];
    const overtaken: number[] = [];
    for (const [id, at] of purgeAt) {
      const audit = byVideo.get(id);
      if (!audit) continue;
      lags.push(audit.purged_at.getTime() - at.getTime());
      overtaken.push(erasurePurges.filter((t) => t > at.getTime() && t < audit.purged_at.getTime()).length);
    }
    lags.sort((a, b) => a - b);
    const lastPurgeDue = Math.max(...[...purgeAt.values()].map((at) => at.getTime()));
    const erasureWaitingAtLastDue = erasurePurges.filter((t) => t > lastPurgeDue).length;
    const erasuresDone = await Promise.all(
      Array.from({ length: options.erasures }, (_, n) =>
        context.dataSource.query<Pick<ErasureBody, 'state' | 'total' | 'done'>[]>(
          'SELECT state, total, done FROM erasures WHERE author_id = ?',
          [erasedAuthor(n)],
        ),
      ),
    );
    const completed = erasuresDone.filter(
      ([row]) => row?.state === 'completed' && row.done === options.videosPerErasure,
    ).length;
    const audited = { erased: erased.filter((id) => byVideo.has(id)).length, purged: lags.length };
    const [rows] = await context.dataSource.query<{ n: string }[]>(
      'SELECT COUNT(*) AS n FROM videos WHERE author_id IN (?)',
      [authors],
    );

    const quantile = (q: number) => lags[Math.min(lags.length - 1, Math.floor(q * lags.length))] ?? NaN;
    const maxOvertaken = Math.max(0, ...overtaken);
    if (audited.purged !== options.purges)
      violations.push(`${audited.purged} of ${options.purges} purges done`);
    if (audited.erased !== erased.length)
      violations.push(`${audited.erased} of ${erased.length} erased videos purged`);
    if (audits.length !== new Set(audits.map((audit) => audit.video_id)).size)
      violations.push('a video audited twice');
    if (completed !== options.erasures)
      violations.push(`${completed} of ${options.erasures} erasures completed`);
    if (Number(rows!.n) !== 0) violations.push(`${rows!.n} rows left`);
    if (erasureWaitingAtLastDue === 0)
      violations.push('the erasures were done before the last purge fell due: nothing shown');
    // What a due purge waited behind is what the deletion slots were already running, never the
    // erasures' backlog: a quarter of it would mean it queued behind them.
    if (maxOvertaken > erased.length / 4)
      violations.push(`a purge waited behind ${maxOvertaken} of the erasures' ${erased.length} deletions`);
    if (options.maxLagMs !== undefined && quantile(1) > options.maxLagMs) {
      violations.push(`the slowest purge took ${(quantile(1) / 1000).toFixed(1)} s after its date`);
    }
    const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    return {
      load: `${options.erasures} permanent erasures of ${options.videosPerErasure} videos each (1 object each), asked at once, while ${options.purges} soft-deleted videos fall due for purge over ${Math.round(options.purgeSpreadMs / 1000)} s (from ${Math.round(options.firstPurgeAfterMs / 1000)} s after); one worker, default concurrencies (seeded in ${seedSeconds.toFixed(0)} s)`,
      faults: 'none: bulk work beside scheduled work on the same deletion slots',
      expected: `every purge done${options.maxLagMs === undefined ? '' : ` within ${options.maxLagMs / 1000} s of its purgeAt`}, overtaken by no more than the deletions already running; every erasure completed; each video audited once`,
      observed: `purge delay after purgeAt: p50 ${seconds(quantile(0.5))}, p99 ${seconds(quantile(0.99))}, max ${seconds(quantile(1))} (${lags.length} purges); erasure deletions finished between a purge's date and its end: at most ${maxOvertaken}; erasure deletions still to run when the last purge fell due: ${erasureWaitingAtLastDue} of ${erased.length}; ${completed}/${options.erasures} erasures completed; ${audits.length} audit records, ${rows!.n} rows left`,
      violations,
    };
  } finally {
    await system?.stop();
    await context.close();
    await redis.stop();
  }
}
