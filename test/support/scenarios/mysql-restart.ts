import { startOwnMysql } from '../mysql-server';
import { sleep, waitFor, waitForStatus } from '../processes';
import { tally } from '../traffic';
import {
  deletedShown,
  drillViolations,
  during,
  explain,
  improperAnswers,
  reconcile,
  runDrill,
  settleDeletions,
  startDrillLoad,
  wholeStateViolations,
  type DrillOptions,
  type DrillSent,
} from './outage-drill';
import type { ScenarioReport } from './report';

export interface MysqlRestartOptions extends DrillOptions {
  /** One restart per entry: SIGTERM is a clean shutdown, SIGKILL a crash. */
  restarts: ('SIGTERM' | 'SIGKILL')[];
  /** How long the server stays down each time. */
  downMs: number;
  /** The first `settleMs` of the load after each return may still see 503s. */
  settleMs: number;
}

/**
 * Scenario 4: the test's own MariaDB is stopped and started again (same port and data) while
 * deletes and searches run. Every answer is 200 or 503 with Retry-After (never 500), requests
 * succeed again shortly after each return, the worker finishes every deletion, and no video is
 * left half deleted.
 */
export async function mysqlRestart(options: MysqlRestartOptions): Promise<ScenarioReport> {
  const mysql = await startOwnMysql();
  try {
    return await runDrill({ DATABASE_URL: mysql.url }, options.videos, async (drill) => {
      const { context, system } = drill;
      const load = startDrillLoad(
        drill,
        options,
        options.beforeMs + options.restarts.length * (options.downMs + 3_000 + options.afterMs),
      );

      await sleep(options.beforeMs);
      const recoveries: number[] = [];
      const afterStarts: number[] = [];
      for (const signal of options.restarts) {
        load.enter('stopping');
        await mysql.stop(signal);
        load.enter('outage');
        await sleep(options.downMs);
        load.enter('returning');
        await mysql.start();
        load.enter('after');
        const back = Date.now();
        afterStarts.push(back);
        // Recovery: the first search sent after the server returned that answers 200.
        const firstOk = await waitFor(
          'a search answered 200 after the restart',
          () =>
            Promise.resolve(
              load.sent.find((s) => s.kind === 'search' && s.sentAt >= back && s.status === 200),
            ),
          { timeoutMs: 60_000, intervalMs: 100 },
        ).catch(() => undefined);
        recoveries.push(firstOk ? firstOk.doneAt - back : NaN);
        await sleep(Math.max(0, options.afterMs - (Date.now() - back)));
      }
      const sent = await load.finish();

      // The worker must finish every deletion the outage held up, including those whose answer was lost.
      const { deletes, late } = await settleDeletions(context, sent, 180_000);
      const stuck = await waitFor(
        'no unfinished deletion',
        async () => {
          const rows: { n: string }[] = await context.dataSource.query(
            "SELECT COUNT(*) AS n FROM videos WHERE state = 'deleting' OR (state = 'soft_deleted' AND purge_at <= NOW(3))",
          );
          return Number(rows[0]!.n) === 0 ? 0 : undefined;
        },
        { timeoutMs: 60_000 },
      ).catch(() => 'some');
      const workerReady = await waitForStatus(`${system.workerHealth}/health/ready`, 200, 30_000).catch(
        () => false,
      );
      // A delete whose commit went through while its answer was lost skipped the index update.
      const repair = await reconcile(drill);
      const whole = await wholeStateViolations(context, drill.ids, sent);

      // Requests sent once the server had been back for `settleMs`, and answered before it was
      // stopped again (one still in flight at the next stop may rightly fail), must all succeed.
      const settled = (s: DrillSent) =>
        s.phase === 'after' &&
        s.donePhase === 'after' &&
        afterStarts.some((at) => s.sentAt >= at + options.settleMs);
      const outage = during(sent, 'outage');
      const shown = deletedShown(sent);
      const violations = [
        ...late,
        ...improperAnswers(sent).map((s) => `neither 200 nor a proper 503: ${explain(s)}`),
        // A search whose hits the API holds copies of needs no MySQL, and may answer 200 (never a
        // video deleted: `deletedShown` below); every other request needs MySQL, and answers 503.
        ...outage
          .filter((s) => s.status !== 503 && !(s.kind === 'search' && s.status === 200))
          .map((s) => `not 503 while MySQL was down: ${explain(s)}`),
        ...sent
          .filter((s) => settled(s) && s.status !== 200)
          .map((s) => {
            const back = afterStarts.filter((at) => at <= s.sentAt);
            const since = ((s.sentAt - back[back.length - 1]!) / 1_000).toFixed(1);
            return `not 200 ${since} s after return ${back.length}: ${explain(s)}`;
          }),
        ...(stuck === 0
          ? []
          : ['deletions left unfinished (deleting, or soft deleted past their purge date)']),
        ...(workerReady === true ? [] : ['worker not ready after the restarts']),
        ...drillViolations(sent, shown, repair, whole),
      ];
      // What the API logged about each request that failed once it should have recovered.
      const apiLog = system.processes[0]!.output().split('\n');
      for (const failed of sent.filter((s) => settled(s) && s.status !== 200)) {
        const line = apiLog.find(
          (l) => l.includes('dependency unavailable') && l.includes(`"url":"${failed.path}"`),
        );
        const message = line ? /"msg":"((?:[^"\\]|\\.)*)"/.exec(line)?.[1] : undefined;
        if (message) violations.push(`API log for ${failed.path}: ${message.slice(0, 400)}`);
      }
      if (!outage.some((s) => s.kind === 'delete')) violations.push('no delete ran while MySQL was down');
      if (!outage.some((s) => s.kind === 'search')) violations.push('no search ran while MySQL was down');

      const unanswered = deletes.filter((s) => s.status !== 200);
      return {
        load: `${options.videos} videos; ${deletes.length} deletes (soft, soft now, permanent in turn) and ${sent.length - deletes.length} exact-title searches at ${options.searchRate}/s`,
        faults: `own MariaDB restarted ${options.restarts.length}× (${options.restarts.join(', ')}), down ${Math.round(options.downMs / 1000)} s each`,
        expected:
          '503 + Retry-After while down (never 500); all 200 again after; every deletion finished; no half-applied deletion',
        observed:
          `while down ${tally(outage)}; overall ${tally(sent)}; first 200 ${recoveries.map((ms) => `${(ms / 1000).toFixed(1)} s`).join(', ')} after each return; ` +
          `${unanswered.length} deletes not answered 200 (each ended whole); deleted shown ${shown.length}; reconcile: ${repair.summary}; ` +
          `end states: ${whole.counts.untouched} untouched, ${whole.counts.soft_deleted} soft deleted, ${whole.counts.purged} purged (one audit each), ${whole.violations.length} partial`,
        violations,
      };
    });
  } finally {
    await mysql.destroy();
  }
}
