import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const SCRIPT = resolve(__dirname, '../../scripts/services.sh');

/** Command lines of the running Java services this script manages. */
async function javaServices(): Promise<{ elasticsearch: number; s3proxy: number }> {
  const { stdout } = await run('ps', ['-eo', 'args']);
  const lines = stdout.split('\n').filter((line) => /\bjava\b/.test(line));
  return {
    elasticsearch: lines.filter((line) => line.includes('org.elasticsearch.bootstrap.Elasticsearch')).length,
    s3proxy: lines.filter((line) => /s3proxy-[\d.]+-jar-with-dependencies\.jar/.test(line)).length,
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

describe('scripts/services.sh', () => {
  it('run twice leaves exactly one of each service, the second run reusing all of them', async () => {
    const first = await run('bash', [SCRIPT, 'up'], { env: process.env });
    expect(Object.keys(reportOf(first.stdout)).sort()).toEqual([
      'elasticsearch',
      'mysql',
      'redis',
      's3proxy',
    ]);

    const second = await run('bash', [SCRIPT, 'up'], { env: process.env });
    expect(reportOf(second.stdout)).toEqual({
      mysql: 'reused',
      redis: 'reused',
      elasticsearch: 'reused',
      s3proxy: 'reused',
    });
    expect(await javaServices()).toEqual({ elasticsearch: 1, s3proxy: 1 });

    const status = await run('bash', [SCRIPT, 'status']);
    expect(reportOf(status.stdout)).toEqual({ mysql: 'up', redis: 'up', elasticsearch: 'up', s3proxy: 'up' });
  }, 300_000);

  it('refuses to start a service on a port something else holds, naming it', async () => {
    // Port 3306 is MySQL's: Elasticsearch must not be "reused" there, nor started on top of it.
    const failure = await run('bash', [SCRIPT, 'up'], {
      env: { ...process.env, ELASTICSEARCH_URL: 'http://127.0.0.1:3306' },
    }).catch((error: { code: number; stderr: string }) => error);
    expect(failure).toMatchObject({ code: expect.any(Number) as unknown });
    expect((failure as { stderr: string }).stderr).toMatch(/3306/);
    expect(await javaServices()).toEqual({ elasticsearch: 1, s3proxy: 1 });
  }, 120_000);

  it('lists elasticsearch-2 with ES_NODES=2, and takes no other count of nodes', async () => {
    const status = await run('bash', [SCRIPT, 'status'], { env: { ...process.env, ES_NODES: '2' } }).catch(
      (error: { stdout: string }) => error,
    );
    expect(Object.keys(reportOf(status.stdout))).toContain('elasticsearch-2');

    const failure = await run('bash', [SCRIPT, 'up'], { env: { ...process.env, ES_NODES: '3' } }).catch(
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
    const servicesDir = mkdtempSync(join(tmpdir(), 'videos-services-'));
    try {
      const url = `http://127.0.0.1:${(single.address() as AddressInfo).port}`;
      const failure = await run('bash', [SCRIPT, 'up', 'elasticsearch-2'], {
        env: { ...process.env, ELASTICSEARCH_URL: url, SERVICES_DIR: servicesDir },
      }).catch((error: { code: number; stdout: string; stderr: string }) => error);
      expect(failure).toMatchObject({ code: 1 });
      expect(reportOf(failure.stdout)).toEqual({ elasticsearch: 'reused' });
      expect(failure.stderr).toMatch(/single node \(discovery.type: single-node\)/);
      expect(failure.stderr).toMatch(/down elasticsearch && ES_NODES=2 bash scripts\/services.sh up/);
      // Nothing started: no second node's directory.
      expect(existsSync(join(servicesDir, 'elasticsearch-2'))).toBe(false);
    } finally {
      await new Promise((done) => single.close(done));
      rmSync(servicesDir, { recursive: true, force: true });
    }
  }, 60_000);
});
