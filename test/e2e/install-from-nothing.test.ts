import { DeleteBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { loadConfig } from '@app/shared/config/load-config';
import { s3Credentials } from '@app/shared/storage/storage.service';
import { readOverlay } from '../../deploy/kubernetes/rendered';
import { ROOT, runProcess } from '../support/processes';
import { startOwnRedis, type OwnRedis } from '../support/redis-server';
import { call, startSystem, token, type System } from '../support/system';
import { openTestContext, type TestContext } from '../support/test-context';

/** The install the manifests run before any pod serves: each Job's command, in the kustomization's order. */
function installSteps(): { entry: string; args: string[] }[] {
  return readOverlay(ROOT, { name: 'local' })
    .filter(Job.is)
    .flatMap((job) => job.spec!.template.spec!.containers)
    .map((container) => {
      const [program, entry, ...args] = [...(container.command ?? []), ...(container.args ?? [])];
      // The image runs Node on a built entry point; here the built tree is the repository's dist/.
      expect(program).toBe('node');
      return { entry: resolve(ROOT, entry!), args };
    });
}

/** A fresh system from empty stores: a database, an index alias and a bucket no one has made. */
describe('an install from nothing, as the manifests run it', () => {
  const suffix = randomBytes(4).toString('hex');
  const database = `videos_install_${suffix}`;
  const mysqlUrl = new URL(process.env.DATABASE_URL!);
  mysqlUrl.pathname = `/${database}`;
  let redis: OwnRedis;
  let env: Record<string, string>;
  let system: System | undefined;
  let admin: TestContext;

  beforeAll(async () => {
    admin = await openTestContext();
    redis = await startOwnRedis();
    env = {
      DATABASE_URL: mysqlUrl.toString(),
      ELASTICSEARCH_INDEX: `videos_install_${suffix}`,
      S3_BUCKET: `videos-install-${suffix}`,
      REDIS_URL: redis.url,
    };
  }, 60_000);

  afterAll(async () => {
    await system?.stop();
    await redis?.stop();
    const config = loadConfig({ ...process.env, ...env });
    const aliased = await fetch(`${config.ELASTICSEARCH_URL}/${config.ELASTICSEARCH_INDEX}_*`);
    for (const index of Object.keys((await aliased.json()) as Record<string, unknown>)) {
      if (index.startsWith(`${config.ELASTICSEARCH_INDEX}_`))
        await fetch(`${config.ELASTICSEARCH_URL}/${index}`, { method: 'DELETE' });
    }
    const s3 = new S3Client({
      endpoint: config.S3_ENDPOINT,
      region: config.S3_REGION,
      forcePathStyle: config.S3_FORCE_PATH_STYLE,
      credentials: s3Credentials(config),
    });
    await s3.send(new DeleteBucketCommand({ Bucket: config.S3_BUCKET })).catch(() => undefined);
    s3.destroy();
    await admin.dataSource.query(`DROP DATABASE IF EXISTS ${database}`);
    await admin.close();
  }, 60_000);

  async function install(): Promise<void> {
    const steps = installSteps();
    expect(steps.length).toBeGreaterThan(0);
    for (const { entry, args } of steps) {
      const { code, output } = await runProcess(entry, args, env, [], { timeoutMs: 120_000 });
      expect({ args, code, output }).toEqual({ args, code: 0, output: expect.any(String) as string });
    }
  }

  async function searchStatus(): Promise<number> {
    const response = await call('GET', `${system!.api}/api/videos/search?q=talk`, token('author-1'));
    return response.status;
  }

  it('serves its first search after the install Job, and after that Job runs again', async () => {
    await install();
    system = await startSystem(env);
    expect(await searchStatus()).toBe(200);

    // A second run (a re-applied Job, the next release's hook) changes nothing that serves.
    await install();
    expect(await searchStatus()).toBe(200);
  }, 240_000);
});
