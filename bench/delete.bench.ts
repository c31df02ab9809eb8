import { VideoState } from '@app/shared/video/video-state';
import { atLeast, count, cpuPer, loadHeader, row, warmedUp } from './lib/figures';
import { benchToken, startFloorDelete } from './lib/kit';
import { runBeside, timedHttpLoad, warmAlternating, type Alongside } from './lib/load';
import { mergeMeasured, withCpu, type MeasuredRun } from './lib/cpu';
import { alternate, mapSides } from './lib/order';
import { openRawSoftDelete, rawSoftDelete, RETENTION_DAYS } from './lib/raw-soft-delete';
import type { Step } from './lib/step';
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

/** Connections; rounds even, so that `roundOrder` balances them. */
const settings = (quick: boolean) => ({ concurrency: 16, rounds: quick ? 2 : 4 });

/**
 * Soft deletes through the API, each request a different video, against the raw script
 * (bench/lib/raw-soft-delete.ts) and the same script behind a bare HTTP server (the floor), on the
 * same videos: unmeasured rounds until the API's V8 has optimised its path and Elasticsearch's JIT
 * compiler has settled, then alternating ones. Between rounds the videos are made active again and
 * the delayed purge jobs removed, so every round deletes active videos that have no job yet.
 */
export const deleteStep: Step<{ softDelete: SoftDeleteBench }> = {
  name: 'delete',
  measures: 'DELETE /api/videos/{id}?retentionDays=30 through the API, 16 connections',
  baseline:
    'a raw script making the same writes (row, outbox event, BullMQ job, bulk index), and it behind a bare node:http server',
  data: 'sample',
  async run({ config, context, quick, withApi }) {
    const { concurrency, rounds } = settings(quick);
    const rows: { id: string }[] = await context.dataSource.query(
      'SELECT id FROM videos WHERE state = ? ORDER BY id LIMIT ?',
      [VideoState.Active, quick ? 1_000 : 2_000],
    );
    const ids = rows.map((row) => row.id);
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
      const measured = await runBeside(alongside, () => withCpu(run));
      await restore();
      return measured;
    };
    const deletes = (url: string, path: (id: string) => string, headers?: Record<string, string>) => () =>
      timedHttpLoad({
        url,
        method: 'DELETE',
        headers,
        request: (i) => ({ path: path(ids[i]!) }),
        concurrency,
        amount: ids.length,
      });
    const token = benchToken();
    /** The sides, the API's profiled when `profile` is given (its measured rounds only). */
    const sides = (apiUrl: string, profile?: Alongside) => ({
      api: round(
        deletes(apiUrl, (id) => `/api/videos/${id}?retentionDays=${RETENTION_DAYS}`, {
          authorization: `Bearer ${token}`,
        }),
        profile,
      ),
      raw: round(() => timedLoop((i) => rawSoftDelete(raw, ids[i]!), { concurrency, total: ids.length })),
      floor: round(deletes(floor.url, (id) => `/${id}`)),
    });
    try {
      const softDelete = await withApi('soft-delete', 'delete', async (apiUrl, profileApi) => {
        await restore();
        const warmUp = await warmAlternating(sides(apiUrl), {
          minRounds: 3,
          minSeconds: quick ? 20 : 40,
          maxSeconds: quick ? 60 : 300,
        });
        const measured = await alternate(sides(apiUrl, profileApi), rounds);
        return { videos: ids.length, ...mapSides(measured, mergeMeasured), warmUp };
      });
      return { softDelete };
    } finally {
      await floor.process.stop();
      await raw.close();
    }
  },
  report({ softDelete }, { quick }) {
    const { concurrency, rounds } = settings(quick);
    const { api, raw, floor } = softDelete;
    const parts = ['elasticsearch', 'mysql', 'redis'];
    return {
      tables: [
        {
          title:
            `Soft delete of ${count(softDelete.videos)} videos (${concurrency} connections; ${rounds} alternating rounds each, a b b a…, the videos restored between rounds; ` +
            `${warmedUp(softDelete.warmUp)}). Throughput, not goals: the floor / raw script ` +
            `${(floor.perSecond / raw.perSecond).toFixed(2)} (what an HTTP hop costs any service making these writes), ` +
            `the API / the floor ${(api.perSecond / floor.perSecond).toFixed(2)}`,
          header: loadHeader(
            'CPU ms per video: Node (API or script) / load generator / ES (of it JIT compiler) / MySQL / Redis',
          ),
          rows: [
            [
              ...row('API: DELETE /api/videos/{id}?retentionDays=30', api),
              cpuPer(api.cpu, api.requests, ['api', 'bench', ...parts]),
            ],
            [
              ...row('raw script: same SQL, outbox event, BullMQ job, bulk index', raw),
              cpuPer(raw.cpu, raw.requests, ['bench', null, ...parts]),
            ],
            [
              ...row('floor: the raw script behind a bare node:http server', floor),
              cpuPer(floor.cpu, floor.requests, ['floor', 'bench', ...parts]),
            ],
          ],
        },
      ],
      targets: [atLeast('soft delete throughput, API / raw script', api.perSecond / raw.perSecond, 0.8)],
    };
  },
};
