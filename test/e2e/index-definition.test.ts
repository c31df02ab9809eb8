import { ReindexService } from '@app/worker/index/reindex.service';
import {
  INDEX_DEFINITION_VERSION,
  videoIndexMappings,
  videoIndexSettings,
} from '@app/shared/search/video-index.definition';
import {
  ENTRY,
  freePort,
  jsonLogLines,
  startProcess,
  waitFor,
  waitForStatus,
  type RunningProcess,
} from '../support/processes';
import { startOwnRedis, type OwnRedis } from '../support/redis-server';
import { openTestContext, type TestContext } from '../support/test-context';

interface Readiness {
  status: string;
  details: Record<string, { status: string; reason?: string }>;
}

/**
 * An API and a worker started on an index built from an older definition than theirs would find
 * nothing: they are not ready, say why and what to run, until a reindex rebuilds it. Under an alias
 * of this test's own (a hyphen: the `<alias>_*` indices other tests reset never include it).
 */
describe('readiness refuses an index of an older definition', () => {
  const alias = `${process.env.ELASTICSEARCH_INDEX!}-definition`;
  let context: TestContext;
  let redis: OwnRedis;
  const processes: RunningProcess[] = [];
  const urls: string[] = [];

  /** Sends a request to Elasticsearch as an operator of an older release would have. */
  const engine = async (method: string, path: string, body: object) => {
    const response = await fetch(`${context.config.ELASTICSEARCH_URL}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    expect({ status: response.status, body: await response.text() }).toMatchObject({ status: 200 });
  };

  const dropIndices = async () => {
    for (const index of await context.indexAdmin.versionedIndices())
      await context.indexAdmin.deleteIndex(index);
  };

  beforeAll(async () => {
    context = await openTestContext({ ELASTICSEARCH_INDEX: alias });
    await dropIndices();
    const older = context.indexAdmin.newIndexName();
    await engine('PUT', `/${older}`, {
      settings: videoIndexSettings,
      mappings: { ...videoIndexMappings, _meta: { definitionVersion: INDEX_DEFINITION_VERSION - 1 } },
    });
    await engine('POST', '/_aliases', { actions: [{ add: { index: older, alias, is_write_index: true } }] });

    redis = await startOwnRedis();
    const env = { REDIS_URL: redis.url, ELASTICSEARCH_INDEX: alias, LOG_LEVEL: 'info' };
    const [apiPort, workerPort] = [await freePort(), await freePort()];
    processes.push(startProcess(ENTRY.api, { ...env, PORT: String(apiPort), METRICS_PORT: '0' }));
    processes.push(startProcess(ENTRY.worker, { ...env, WORKER_PORT: String(workerPort) }));
    urls.push(`http://127.0.0.1:${apiPort}/health/ready`, `http://127.0.0.1:${workerPort}/health/ready`);
  }, 90_000);

  afterAll(async () => {
    await Promise.all(processes.map((running) => running.stop()));
    await redis?.stop();
    await dropIndices();
    await context?.close();
  }, 60_000);

  it('answers 503 naming the definition versions and the reindex, then ready once reindexed', async () => {
    for (const url of urls) {
      const refused = await waitFor(
        `${url} to refuse`,
        async () => {
          const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
          return response.status === 503 ? ((await response.json()) as Readiness) : undefined;
        },
        { timeoutMs: 60_000 },
      );
      expect(refused.details.elasticsearch).toEqual({
        status: 'down',
        reason:
          `the search index holds definition version ${INDEX_DEFINITION_VERSION - 1}, older than this ` +
          `build's ${INDEX_DEFINITION_VERSION}: run \`npm run cli -- reindex\``,
      });
      // Every other dependency answers: only the index's definition is wrong.
      expect(refused.details.mysql!.status).toBe('up');
    }
    // The worker's index check at its start says so in its log too.
    const worker = processes[1]!;
    await waitFor('the worker to warn', () =>
      Promise.resolve(jsonLogLines(worker, 'older than this build').length > 0 ? true : undefined),
    );

    const result = await context.get(ReindexService).rebuild();
    expect(await context.indexAdmin.aliasTargets()).toEqual([result.index]);
    for (const url of urls) await waitForStatus(url, 200, 30_000);
  }, 150_000);
});
