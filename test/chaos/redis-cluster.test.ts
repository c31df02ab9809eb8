import { redisClusterFailover } from '../support/scenarios/redis-cluster-failover';
import { recordReport } from './results';

describe('chaos: a Redis Cluster primary killed while deletes, searches and an erasure run', () => {
  it('fails over to its replica; every deletion and the erasure complete once; nothing half deleted', async () => {
    const report = await redisClusterFailover({
      videos: 600,
      deletes: 300,
      erasedVideos: 200,
      beforeMs: 10_000,
      afterMs: 30_000,
      settleMs: 5_000,
      searchRate: 20,
      completeWithinMs: 180_000,
    });
    recordReport('Redis Cluster failover', report);
    expect(report.violations).toEqual([]);
  }, 900_000);
});
