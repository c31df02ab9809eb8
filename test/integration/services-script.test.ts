import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
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
        (parts) => parts.length >= 2 && ['mysql', 'redis', 'elasticsearch', 's3proxy'].includes(parts[0]!),
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
});
