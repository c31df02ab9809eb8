import { elasticsearchNodeLoss } from '../support/scenarios/elasticsearch-node-loss';
import { recordReport } from './results';

describe('chaos: an Elasticsearch cluster of two loses a node while deletes and searches run', () => {
  it('promotes the replicas; searches keep answering 200 with results, never a 500, never a deleted video', async () => {
    const report = await elasticsearchNodeLoss({
      videos: 2_000,
      deletes: 300,
      beforeMs: 15_000,
      afterMs: 45_000,
      searchRate: 30,
    });
    recordReport('Elasticsearch node lost (two nodes, one replica)', report);
    expect(report.violations).toEqual([]);
  }, 900_000);
});
