import { redisClusterFailover } from '../support/scenarios/redis-cluster-failover';

/**
 * The API and the worker on a Redis Cluster, a primary lost under load (docs/operations.md,
 * "Redis Cluster"); `npm run chaos` runs it longer and larger.
 */
describe('Redis Cluster: a primary killed while deletes, searches and an erasure run', () => {
  it('fails over to its replica; every deletion and the erasure complete once; nothing half deleted', async () => {
    const report = await redisClusterFailover({
      videos: 60,
      deletes: 30,
      erasedVideos: 10,
      beforeMs: 3_000,
      afterMs: 6_000,
      settleMs: 3_000,
      searchRate: 10,
      completeWithinMs: 90_000,
    });
    console.log(`${report.faults}\n${report.observed}`);
    expect(report.violations).toEqual([]);
  }, 420_000);
});
