import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { freePort, ROOT } from '../support/processes';

const run = promisify(execFile);
/** The entry point of scripts/services, as `npm run services:*` calls it. */
const SCRIPT = resolve(ROOT, 'scripts/services.sh');

/** A process's command line and environment, or empty when it is gone or not ours to read. */
function procText(pid: string, file: 'cmdline' | 'environ'): string {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

/**
 * The Elasticsearch servers and S3Proxies that run from `servicesDir` (others on this machine,
 * other checkouts' or other tests', are not this test's to count).
 */
function javaServices(servicesDir: string): { elasticsearch: number; s3proxy: number } {
  const pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  return {
    elasticsearch: pids.filter(
      (pid) =>
        procText(pid, 'cmdline').includes('org.elasticsearch.bootstrap.Elasticsearch') &&
        procText(pid, 'environ').includes(`ES_PATH_CONF=${servicesDir}/`),
    ).length,
    s3proxy: pids.filter((pid) =>
      new RegExp(`s3proxy-[\\d.]+-jar-with-dependencies\\.jar --properties ${servicesDir}/`).test(
        procText(pid, 'cmdline'),
      ),
    ).length,
  };
}

function reportOf(stdout: string): Record<string, string> {
  return Object.fromEntries(
    stdout
      .split('\n')
      .map((line) => line.trim().split(/\s+/))
      .filter(
        (parts) =>
          parts.length >= 2 &&
          ['mysql', 'redis', 'elasticsearch', 'elasticsearch-2', 's3proxy'].includes(parts[0]!),
      )
      .map((parts) => [parts[0]!, parts[1]!]),
  );
}

/**
 * `bash scripts/services.sh` with services of this test's own: a services directory of its own and
 * Redis, Elasticsearch and S3Proxy on free ports, so the start path runs and stopping them touches
 * nothing else; MySQL is the test database's server (reused: a second server would need its own
 * data directory, which the chaos tests' own MariaDB covers).
 */
describe('scripts/services.sh', () => {
  const servicesDir = mkdtempSync(join(tmpdir(), 'videos-services-'));
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    env = {
      ...process.env,
      SERVICES_DIR: servicesDir,
      SERVICES_CACHE: process.env.SERVICES_CACHE ?? resolve(ROOT, '.cache'),
      REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
      ELASTICSEARCH_URL: `http://127.0.0.1:${await freePort()}`,
      S3_ENDPOINT: `http://127.0.0.1:${await freePort()}`,
      ES_HEAP: '256m',
    };
  });

  afterAll(async () => {
    const stopped = await run('bash', [SCRIPT, 'down'], { env });
    expect(stopped.stdout).toMatch(/elasticsearch: stopped/);
    expect(javaServices(servicesDir)).toEqual({ elasticsearch: 0, s3proxy: 0 });
    rmSync(servicesDir, { recursive: true, force: true });
  }, 120_000);

  it('run twice leaves exactly one of each service, the second run reusing all of them', async () => {
    const first = await run('bash', [SCRIPT, 'up'], { env });
    expect(Object.keys(reportOf(first.stdout)).sort()).toEqual([
      'elasticsearch',
      'mysql',
      'redis',
      's3proxy',
    ]);

    const second = await run('bash', [SCRIPT, 'up'], { env });
    expect(reportOf(second.stdout)).toEqual({
      mysql: 'reused',
      redis: 'reused',
      elasticsearch: 'reused',
      s3proxy: 'reused',
    });
    expect(javaServices(servicesDir)).toEqual({ elasticsearch: 1, s3proxy: 1 });

    const status = await run('bash', [SCRIPT, 'status'], { env });
    expect(reportOf(status.stdout)).toEqual({ mysql: 'up', redis: 'up', elasticsearch: 'up', s3proxy: 'up' });

    // What a run leaves behind is said, with the command that stops it.
    const left = await run('bash', [SCRIPT, 'left-running'], { env });
    expect(left.stdout).toMatch(/elasticsearch +http:\/\/127\.0\.0\.1:\d+ \(pid \d+\)/);
    expect(left.stdout).toMatch(/Stop them with: npm run services:down/);
  }, 300_000);

  it('refuses to start a service on a port something else holds, naming it', async () => {
    // MySQL's port: Elasticsearch must not be "reused" there, nor started on top of it.
    const mysqlPort = new URL(process.env.DATABASE_URL!).port || '3306';
    const failure = await run('bash', [SCRIPT, 'up'], {
      env: { ...env, ELASTICSEARCH_URL: `http://127.0.0.1:${mysqlPort}` },
    }).catch((error: { code: number; stderr: string }) => error);
    expect(failure).toMatchObject({ code: expect.any(Number) as unknown });
    expect((failure as { stderr: string }).stderr).toMatch(new RegExp(mysqlPort));
    // One line, no stack trace.
    expect((failure as { stderr: string }).stderr).not.toMatch(/\n\s+at /);
    expect(javaServices(servicesDir)).toEqual({ elasticsearch: 1, s3proxy: 1 });
  }, 120_000);

  it('lists elasticsearch-2 with ES_NODES=2, and takes no other count of nodes', async () => {
    const status = await run('bash', [SCRIPT, 'status'], { env: { ...env, ES_NODES: '2' } }).catch(
      (error: { stdout: string }) => error,
    );
    expect(Object.keys(reportOf(status.stdout))).toContain('elasticsearch-2');

    const failure = await run('bash', [SCRIPT, 'up'], { env: { ...env, ES_NODES: '3' } }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/ES_NODES must be 1 or 2/) as unknown,
    });
  }, 60_000);

  it('reuses a running single node as it is, and says how to restart it when a second node should join', async () => {
    // Answers as a node started with discovery.type single-node does (which refuses every node
    // that would join it), so that no real node is started or stopped to show it.
    const single: Server = createServer((request, response) => {
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify(
          request.url?.startsWith('/_nodes/_local')
            ? {
                nodes: {
                  n1: {
                    transport_address: '127.0.0.1:9',
                    settings: { cluster: { name: 'single' }, discovery: { type: 'single-node' } },
                  },
                },
              }
            : { cluster_name: 'single', status: 'green' },
        ),
      );
    });
    await new Promise<void>((done) => single.listen(0, '127.0.0.1', done));
    const otherDir = mkdtempSync(join(tmpdir(), 'videos-services-'));
    try {
      const url = `http://127.0.0.1:${(single.address() as AddressInfo).port}`;
      const failure = await run('bash', [SCRIPT, 'up', 'elasticsearch-2'], {
        env: { ...env, ELASTICSEARCH_URL: url, SERVICES_DIR: otherDir },
      }).catch((error: { code: number; stdout: string; stderr: string }) => error);
      expect(failure).toMatchObject({ code: 1 });
      expect(reportOf(failure.stdout)).toEqual({ elasticsearch: 'reused' });
      expect(failure.stderr).toMatch(/single node \(discovery.type: single-node\)/);
      expect(failure.stderr).toMatch(/down elasticsearch && ES_NODES=2 bash scripts\/services.sh up/);
      // Nothing started: no second node's directory.
      expect(existsSync(join(otherDir, 'elasticsearch-2'))).toBe(false);
    } finally {
      await new Promise((done) => single.close(done));
      rmSync(otherDir, { recursive: true, force: true });
    }
  }, 60_000);
});
