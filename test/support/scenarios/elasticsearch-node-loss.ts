import { clusterRead, startElasticsearchCluster, type ElasticsearchNode } from '../elasticsearch-node';
import { sleep } from '../processes';
import type { TestContext } from '../test-context';
import { send, tally } from '../traffic';
import {
  drillTitle,
  during,
  explain,
  improperAnswers,
  itemIds,
  runDrill,
  settleAndCheck,
  startDrillLoad,
  type DrillOptions,
} from './outage-drill';
import type { ScenarioReport } from './report';

/** One copy of one shard of the index, as `_cat/shards` lists it. */
interface ShardCopy {
  shard: string;
  prirep: 'p' | 'r';
  state: string;
  node: string | null;
}

async function shardCopies(context: TestContext): Promise<ShardCopy[]> {
  return clusterRead<ShardCopy[]>(
    context.config.ELASTICSEARCH_URL,
    `/_cat/shards/${context.indexAdmin.alias}?format=json&h=shard,prirep,state,node`,
  );
}

const primariesOn = (copies: ShardCopy[], node: ElasticsearchNode) =>
  copies.filter((copy) => copy.prirep === 'p' && copy.node === node.name).map((copy) => copy.shard);

/**
 * A search tier that scales out, losing a node: a cluster of two nodes of the test's own, the
 * index with two shards and one replica (ELASTICSEARCH_SHARDS, ELASTICSEARCH_REPLICAS) so each node
 * holds a copy of every shard, and the API, the worker and the CLI given both nodes' URLs
 * (ELASTICSEARCH_URL as a list). Under searches and deletes, the node that is not the master is
 * SIGKILLed. Its primaries' replicas on the other node must be promoted; from then on every
 * search answers 200 with what it should find; while the cluster reacts a 503 problem is
 * acceptable, a 500 never; and no search ever shows a video whose DELETE was answered.
 */
export async function elasticsearchNodeLoss(options: DrillOptions): Promise<ScenarioReport> {
  const cluster = await startElasticsearchCluster(2);
  const [survivor, lost] = cluster.nodes as [ElasticsearchNode, ElasticsearchNode];
  try {
    const env = { ELASTICSEARCH_URL: cluster.url, ELASTICSEARCH_SHARDS: '2', ELASTICSEARCH_REPLICAS: '1' };
    return await runDrill(env, options.videos, async (drill) => {
      const { context } = drill;
      const violations: string[] = [];
      // Every replica copied before the load: losing a node then loses no shard.
      await clusterRead(
        context.config.ELASTICSEARCH_URL,
        `/_cluster/health/${context.indexAdmin.alias}?wait_for_status=green&timeout=60s`,
      );
      const before = await shardCopies(context);
      const lostPrimaries = primariesOn(before, lost);
      // The allocator spreads two primaries over two nodes; without one on the lost node no
      // replica would need promoting, and the test would not test that.
      if (lostPrimaries.length === 0) {
        violations.push(`no primary on the node to lose, nothing to promote: ${JSON.stringify(before)}`);
      }

      // A few searches first: the first ones on cold JVMs take seconds, and would leave the short
      // phase before the loss without an answered search to compare with.
      for (let i = 0; i < 8; i += 1) {
        const q = encodeURIComponent(drillTitle(i));
        await send('warm-up', 'GET', drill.system.api, `/api/videos/search?q=${q}&limit=100`, drill.bearer);
      }
      const load = startDrillLoad(drill, options, options.beforeMs + 1_000 + options.afterMs);
      await sleep(options.beforeMs);
      load.enter('stopping');
      const killedAt = Date.now();
      await lost.kill();
      // Reacted: the master has seen the node go (one node left) and every shard has an active
      // primary again (yellow: the replicas have nowhere to go).
      const reacted = await clusterRead<{ status: string; number_of_nodes: number; timed_out: boolean }>(
        context.config.ELASTICSEARCH_URL,
        '/_cluster/health?wait_for_nodes=1&wait_for_status=yellow&timeout=60s',
      );
      const reactionMs = Date.now() - killedAt;
      load.enter('after');
      const after = await shardCopies(context);
      await sleep(options.afterMs);
      const sent = await load.finish();

      const settled = await settleAndCheck(drill, sent, 120_000);
      const { deletes, driftBefore, repair, probes, whole, shown } = settled;

      const searches = sent.filter((s) => s.kind === 'search');
      const reacting = searches.filter((s) => s.phase === 'stopping' || s.donePhase === 'stopping');
      const afterSearches = during(sent, 'after', 'search');
      const promoted = lostPrimaries.filter((shard) => primariesOn(after, survivor).includes(shard));
      if (reacted.timed_out)
        violations.push(`the cluster did not react within 60 s: ${JSON.stringify(reacted)}`);
      violations.push(
        ...after
          .filter((copy) => copy.prirep === 'p' && (copy.node !== survivor.name || copy.state !== 'STARTED'))
          .map(
            (copy) => `shard ${copy.shard} has no started primary on the survivor: ${JSON.stringify(copy)}`,
          ),
        ...improperAnswers(sent).map((s) => `neither 200 nor a proper 503: ${explain(s)}`),
        ...afterSearches
          .filter((s) => s.status !== 200 || itemIds(s).length === 0)
          .map((s) => `search after the reaction not 200 with results: ${explain(s)}`),
        ...settled.violations,
      );
      if (afterSearches.length === 0) violations.push('no search ran after the reaction');
      if (during(sent, 'before', 'search').length === 0) violations.push('no search ran before the loss');

      return {
        load: `${options.videos} videos in 2 shards with 1 replica each, on 2 nodes; ${deletes.length} deletes and ${searches.length} exact-title searches at ${options.searchRate}/s`,
        faults: `SIGKILL of the node that is not the master, holding primaries of shards [${lostPrimaries.join(', ')}]; the cluster reacted (one node, yellow) in ${reactionMs} ms`,
        expected:
          'its replicas promoted; searches 200 with results once the cluster has reacted, 200 or a proper 503 before, never a 500; deletes 200; no deleted video ever shown',
        observed:
          `promoted [${promoted.join(', ')}]; searches before ${tally(during(sent, 'before', 'search'))}, ` +
          `while reacting ${tally(reacting)}, after ${tally(afterSearches)}; deletes ${tally(deletes)}; ` +
          `deleted shown ${shown.length + probes.failures.length} (${probes.probes} title probes); ` +
          `index drift before reconcile ${driftBefore.total} (reconcile: ${repair.summary}); ` +
          `end states: ${whole.counts.untouched} untouched, ${whole.counts.soft_deleted} soft deleted, ${whole.counts.purged} purged, ${whole.violations.length} partial`,
        violations,
      };
    });
  } finally {
    await cluster.destroy();
  }
}
