import { elasticsearchNodeLoss } from '../support/scenarios/elasticsearch-node-loss';

/**
 * A search tier that scales out (docs/scaling.md), in miniature: two Elasticsearch nodes of the
 * test's own, the index with one replica, one node SIGKILLed under searches and deletes.
 */
describe('an Elasticsearch cluster of two loses a node under search load', () => {
  it('promotes the replicas, and searches keep answering 200 with results, never a 500, never a deleted video', async () => {
    const report = await elasticsearchNodeLoss({
      videos: 300,
      deletes: 30,
      beforeMs: 4_000,
      afterMs: 8_000,
      searchRate: 20,
    });
    // What happened, for the log of a run that passes too.
    console.log(`${report.faults}\n${report.observed}`);
    expect(report.violations).toEqual([]);
  }, 240_000);
});
