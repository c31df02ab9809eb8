import { ReindexService } from '@app/worker/index/reindex.service';
import { jsonLogLines, startService, waitFor, type RunningProcess } from '../support/processes';
import { clusterRead } from '../support/elasticsearch-node';
import { startOwnRedis, type OwnRedis } from '../support/redis-server';
import { openTestContext, type TestContext } from '../support/test-context';

/**
 * ELASTICSEARCH_SHARDS and ELASTICSEARCH_REPLICAS on the shared node, under an alias of this
 * test's own: named with a hyphen, so the `<alias>_*` indices other tests reset never include it.
 */
describe('the index shape follows ELASTICSEARCH_SHARDS and ELASTICSEARCH_REPLICAS', () => {
  const alias = `${process.env.ELASTICSEARCH_INDEX!}-shape`;
  const shapeEnv = (shards: number, replicas: number) => ({
    ELASTICSEARCH_INDEX: alias,
    ELASTICSEARCH_SHARDS: String(shards),
    ELASTICSEARCH_REPLICAS: String(replicas),
  });
  let context: TestContext;
  let redis: OwnRedis | undefined;
  let worker: RunningProcess | undefined;

  const dropIndices = async () => {
    for (const index of await context.indexAdmin.versionedIndices())
      await context.indexAdmin.deleteIndex(index);
  };

  /** Shards and replicas of each index behind the alias, as Elasticsearch reports them. */
  const shapes = async () => {
    const found = await clusterRead<Record<string, { settings: Record<string, string> }>>(
      context.config.ELASTICSEARCH_URL,
      `/${alias}/_settings/index.number_of_shards,index.number_of_replicas?flat_settings=true`,
    );
    return Object.values(found).map(({ settings }) => {
      const flat = settings;
      return {
        shards: Number(flat['index.number_of_shards']),
        replicas: Number(flat['index.number_of_replicas']),
      };
    });
  };

  beforeAll(async () => {
    context = await openTestContext(shapeEnv(2, 0));
    await dropIndices();
    await context.indexAdmin.ensureAlias();
  }, 60_000);

  afterAll(async () => {
    await worker?.stop();
    await redis?.stop();
    // One replica cannot be placed on a single node: leave no yellow index behind.
    await dropIndices();
    await context?.close();
  }, 60_000);

  it('creates the index with the configured shards and replicas', async () => {
    expect(await shapes()).toEqual([{ shards: 2, replicas: 0 }]);
  }, 30_000);

  it('a worker started with a new ELASTICSEARCH_REPLICAS applies it to the live index, and names the reindex a new ELASTICSEARCH_SHARDS needs', async () => {
    redis = await startOwnRedis();
    worker = (await startService('worker', { ...shapeEnv(3, 1), REDIS_URL: redis.url, LOG_LEVEL: 'info' }))
      .process;
    await waitFor('the replica count to change', async () =>
      (await shapes())[0]?.replicas === 1 ? true : undefined,
    );
    expect(await shapes()).toEqual([{ shards: 2, replicas: 1 }]);

    const [index] = await context.indexAdmin.aliasTargets();
    const running = worker;
    // The line follows the change at once, but reaches us through the process's pipe.
    const [changed] = await waitFor('the log line of the change', () => {
      const lines = jsonLogLines<Record<string, unknown>>(running, 'index replica count changed');
      return Promise.resolve(lines.length > 0 ? lines : undefined);
    });
    expect(changed).toMatchObject({ index, replicas: 1, previousReplicas: 0 });
    // Logged right after the change, but it may reach us in a later chunk of the pipe.
    const [shardWarning] = await waitFor('the log line naming the reindex', () => {
      const lines = jsonLogLines<Record<string, unknown>>(running, 'differs from ELASTICSEARCH_SHARDS');
      return Promise.resolve(lines.length > 0 ? lines : undefined);
    });
    expect(shardWarning).toMatchObject({ index, shards: 2, configuredShards: 3 });
    expect(String(shardWarning!.msg)).toMatch(/cli -- reindex/);
  }, 90_000);

  it('a reindex rebuilds the index with the configured shards and replicas', async () => {
    const reshaped = await openTestContext(shapeEnv(3, 1));
    try {
      // One data node cannot hold a replica: the reindex must not wait for one.
      const result = await reshaped.get(ReindexService).rebuild();
      expect(await reshaped.indexAdmin.aliasTargets()).toEqual([result.index]);
      expect(await shapes()).toEqual([{ shards: 3, replicas: 1 }]);
    } finally {
      await reshaped.close();
    }
  }, 60_000);
});
