import { startElasticsearchNode } from '../elasticsearch-node';
import { sleep } from '../processes';
import { tally } from '../traffic';
import {
  during,
  explain,
  improperAnswers,
  indexDrift,
  runDrill,
  settleAndCheck,
  startDrillLoad,
  type DrillOptions,
} from './outage-drill';
import type { ScenarioReport } from './report';

export interface ElasticsearchOutageOptions extends DrillOptions {
  outageMs: number;
}

/**
 * Scenario 3: the test's own Elasticsearch node is stopped while deletes and searches run, then
 * started again on the same data. Deletes must answer 200 throughout (MySQL is the truth; index
 * writes are deferred), searches 503 with Retry-After while it is away, no search may ever show a
 * deleted video, and the reconciler (the CLI command) must bring the index back in line with MySQL.
 */
export async function elasticsearchOutage(options: ElasticsearchOutageOptions): Promise<ScenarioReport> {
  const es = await startElasticsearchNode();
  try {
    return await runDrill({ ELASTICSEARCH_URL: es.url }, options.videos, async (drill) => {
      const { context } = drill;
      const load = startDrillLoad(
        drill,
        options,
        options.beforeMs + options.outageMs + 15_000 + options.afterMs,
      );

      await sleep(options.beforeMs);
      load.enter('stopping');
      await es.stop();
      load.enter('outage');
      await sleep(options.outageMs);
      load.enter('returning');
      const returnStarted = Date.now();
      await es.start();
      const returnMs = Date.now() - returnStarted;
      const driftAtReturn = await indexDrift(context);
      load.enter('after');
      await sleep(options.afterMs);
      const sent = await load.finish();

      // Let the worker finish what the outage held up, then compare and repair.
      const settled = await settleAndCheck(drill, sent, 300_000);
      const { deletes, driftBefore, driftAfter, repair, probes, whole, shown } = settled;

      const searches = sent.filter((s) => s.kind === 'search');
      const outageSearches = during(sent, 'outage', 'search');
      const afterSearches = during(sent, 'after', 'search');
      const violations = [
        ...outageSearches
          .filter((s) => s.status !== 503)
          .map((s) => `search during the outage not 503: ${explain(s)}`),
        ...improperAnswers(searches).map((s) => `search neither 200 nor a proper 503: ${explain(s)}`),
        ...afterSearches
          .filter((s) => s.status !== 200)
          .map((s) => `search after the return not 200: ${explain(s)}`),
        // Connections are refused at once while the node is away: nothing should wait on it.
        ...sent
          .filter((s) => s.phase === 'outage' && s.doneAt - s.sentAt > 2_000)
          .map((s) => `slow answer during the outage (${s.doneAt - s.sentAt} ms): ${explain(s)}`),
        ...settled.violations,
      ];
      if (outageSearches.length === 0) violations.push('no search ran during the outage');
      if (during(sent, 'outage', 'delete').length === 0) violations.push('no delete ran during the outage');

      return {
        load: `${options.videos} videos; ${deletes.length} deletes (soft, soft now, permanent in turn) and ${searches.length} exact-title searches at ${options.searchRate}/s`,
        faults: `own Elasticsearch node stopped for ${Math.round(options.outageMs / 1000)} s, back (yellow) in ${(returnMs / 1000).toFixed(0)} s`,
        expected:
          'deletes 200 throughout; searches 503 + Retry-After while it is down; no deleted video ever shown; reconciler makes the index match MySQL',
        observed:
          `deletes ${tally(deletes)} (${during(sent, 'outage', 'delete').length} during the outage); ` +
          `searches during the outage ${tally(outageSearches)}, after the return ${tally(afterSearches)}; ` +
          `deleted shown ${shown.length + probes.failures.length} (${probes.probes} title probes); ` +
          `index drift at return ${driftAtReturn.total}, before reconcile ${driftBefore.total}` +
          ` (reconcile: ${repair.summary})` +
          `, after ${driftAfter.total}; end states: ${whole.counts.untouched} untouched, ${whole.counts.soft_deleted} soft deleted, ${whole.counts.purged} purged, ${whole.violations.length} partial`,
        violations,
      };
    });
  } finally {
    await es.destroy();
  }
}
