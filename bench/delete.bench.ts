import type { AppConfig } from '@app/shared/config/config.schema';
import { VideoState } from '@app/shared/video/video-state';
import { benchToken, startFloorDelete, type BenchContext } from './lib/kit';
import { runBeside, timedHttpLoad, warmAlternating, type Alongside } from './lib/load';
import { cpuSeconds, cpuSince, mergeMeasured, type MeasuredRun } from './lib/cpu';
import { alternate } from './lib/order';
import { openRawSoftDelete, rawSoftDelete, RETENTION_DAYS } from './lib/raw-soft-delete';
import type { Settled } from './lib/warm-up';
import { timedLoop, type TimedRun } from './lib/stats';

export interface SoftDeleteBench {
  /** Videos soft-deleted in each round (the same ones, restored in between). */
  videos: number;
  api: MeasuredRun;
  raw: MeasuredRun;
  /**
   * The raw script behind a bare node:http server (bench/floor-delete.ts), loaded like the API:
   * what any HTTP service doing the same writes pays, before any framework, auth or validation.
   */
  floor: MeasuredRun;
  /** The unmeasured alternating rounds before the measured ones. */
  warmUp: Settled;
}

/**
 * Soft deletes through the API (`DELETE /api/videos/{id}?retentionDays=30`, each request a different
 * video) against the raw script (bench/lib/raw-soft-delete.ts) and against the same script behind a
 * bare HTTP server (the floor), at the same concurrency, on the same videos: unmeasured
 * rounds of both sides until the API's V8 has optimised its path (a fresh API took about one and
 * a half times the CPU per request in its first 500 requests) and Elasticsearch's JIT compiler
 * has settled (`warmUntilSettled`), then `rounds` alternating ones (a b b a…). Between rounds the
 * videos are made active again (row, document) and the delayed purge jobs removed, so every round
 * deletes active videos that have no job yet.
 */
export async function benchSoftDelete(
  config: AppConfig,
  context: BenchContext,
  apiUrl: string,
  {
    concurrency,
    videos,
    rounds,
    warmUpSeconds,
    profileApi,
  }: {
    concurrency: number;
    videos: number;
    rounds: number;
    warmUpSeconds: { min: number; max: number };
    /** Runs beside the deletes of each of the API's measured rounds (a profiler of its process). */
    profileApi?: Alongside;
  },
): Promise<SoftDeleteBench> {
  const rows: { id: string }[] = await context.dataSource.query(
    'SELECT id FROM videos WHERE state = ? ORDER BY id LIMIT ?',
    [VideoState.Active, videos],
  );
  const ids = rows.map((row) => row.id);
  const token = benchToken();
  const raw = openRawSoftDelete(config, context.engine);
  const floor = await startFloorDelete();
  const restore = async () => {
    await context.dataSource.query(
      `UPDATE videos SET state = 'active', deleted_at = NULL, purge_at = NULL, deletion_reason = NULL,
         deletion_requested_by = NULL, version = version + 1 WHERE id IN (?)`,
      [ids],
    );
    await context.indexWriter.indexVideos(await context.videos.findByIds(ids));
    // The 30-day purges either side scheduled: with them, the next round would move jobs, not add them.
    await raw.queue.drain(true);
  };
  /**
   * One round of a side, from active videos with no job to soft-deleted ones; CPU per part, and
   * `alongside` work (if any) beside the deletes only, not the restore after them.
   */
  const round = (run: () => Promise<TimedRun>, alongside?: Alongside) => async () => {
    const measured = await runBeside(alongside, async () => {
      const cpu0 = cpuSeconds();
      return { ...(await run()), cpu: cpuSince(cpu0) };
    });
    await restore();
    return measured;
  };
  /** The sides, the API's profiled when `profile` is given (its measured rounds only). */
  const sides = (profile?: Alongside) => ({
    api: round(
      () =>
        timedHttpLoad({
          url: apiUrl,
          method: 'DELETE',
          headers: { authorization: `Bearer ${token}` },
          request: (i) => ({ path: `/api/videos/${ids[i]!}?retentionDays=${RETENTION_DAYS}` }),
          concurrency,
          amount: ids.length,
        }),
      profile,
    ),
    raw: round(() => timedLoop((i) => rawSoftDelete(raw, ids[i]!), { concurrency, total: ids.length })),
    floor: round(() =>
      timedHttpLoad({
        url: floor.url,
        method: 'DELETE',
        request: (i) => ({ path: `/${ids[i]!}` }),
        concurrency,
        amount: ids.length,
      }),
    ),
  });
  try {
    await restore();
    const warmUp = await warmAlternating(sides(), {
      minRounds: 3,
      minSeconds: warmUpSeconds.min,
      maxSeconds: warmUpSeconds.max,
      settledJitShare: 0.01,
    });
    const measured = await alternate(sides(profileApi), rounds);
    return {
      videos: ids.length,
      api: mergeMeasured(measured.api),
      raw: mergeMeasured(measured.raw),
      floor: mergeMeasured(measured.floor),
      warmUp,
    };
  } finally {
    await floor.process.stop();
    await raw.close();
  }
}
