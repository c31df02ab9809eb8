import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { bootSystem } from '../support/boot';
import { ROOT } from '../support/processes';
import { importSample } from '../support/sample-import';

/** Where the tour's blocks say the demo's API is; the test points them at its own system. */
const DEMO_API = 'http://127.0.0.1:3000';
/** The demo's secrets (scripts/demo.ts), which the tour's blocks use as they are. */
const DEMO_ENV = {
  JWT_SECRET: 'demo-only-secret-0123456789-abcdefghijklmnop',
  ADMIN_USERNAME: 'admin',
  ADMIN_PASSWORD: 'demo-dashboard-password',
};
/** Enough of the sample for a few "asyncio" hits. */
const RECORDS = 2_000;

/** The shell blocks between the README's tour markers, in order. */
export function tourBlocks(readme: string): string[] {
  const start = readme.indexOf('<!-- readme-tour:');
  const end = readme.indexOf('<!-- readme-tour: end -->');
  if (start < 0 || end < start) throw new Error('README.md has no readme-tour markers');
  return [...readme.slice(start, end).matchAll(/^```(?:bash|sh|shell)\n([\s\S]*?)^```$/gm)].map(
    (match) => match[1]!,
  );
}

/**
 * The README's five-minute tour, block by block, as a reader pastes it into one shell: each block
 * runs in bash with the variables the earlier ones set, against a system started the way the
 * other end-to-end tests start one, with the demo's secrets and a slice of the sample.
 */
describe("the README's tour", () => {
  let dir: string;
  const blocks = tourBlocks(readFileSync(resolve(ROOT, 'README.md'), 'utf8'));

  beforeAll(() => {
    if (spawnSync('jq', ['--version']).status !== 0) {
      throw new Error('the README tour needs jq: install the Debian package `jq` (apt-get install jq)');
    }
    dir = mkdtempSync(join(tmpdir(), 'readme-tour-'));
    writeFileSync(join(dir, 'state'), '');
  });
  const boot = bootSystem({
    seed: async () => expect(await importSample(RECORDS, 500)).toMatchObject({ code: 0 }),
    system: { env: DEMO_ENV },
    timeoutMs: 300_000,
  });
  afterAll(() => dir && rmSync(dir, { recursive: true, force: true }));

  /** Runs one block in bash with the state the earlier blocks left; its stdout. */
  const run = (block: string): string => {
    const state = join(dir, 'state');
    const script = `set -eo pipefail\nset -a\nsource ${state}\n${block.replaceAll(DEMO_API, boot.system.api)}\nexport -p > ${state}\n`;
    const result = spawnSync('bash', ['-c', script], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect({ block, status: result.status, stderr: result.stderr }).toMatchObject({ status: 0 });
    return result.stdout;
  };
  const lastLine = (output: string) => output.trim().split('\n').at(-1);

  it('has the blocks this test checks', () => {
    expect(blocks).toHaveLength(7);
  });

  it('runs every block in order, and each does what the README says', () => {
    const [token, search, remove, receipt, restore, erasure, operators] = blocks as [string, ...string[]];

    run(token);
    const found = run(search!);
    expect(found).toMatch(/"authorId": "[0-9a-f-]{36}"/);
    const { ID: id, AUTHOR: author } = variables();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(author).toMatch(/^[0-9a-f-]{36}$/);

    const deleted = run(remove!);
    expect(deleted).toContain(`"id": "${id}"`);
    expect(deleted).toContain('"state": "soft_deleted"');
    expect(lastLine(deleted)).toBe('false');

    const shown = run(receipt!);
    expect(shown).toContain('"state": "soft_deleted"');
    expect(shown).toContain('"requestedBy": "demo-admin"');
    expect(shown).toContain(`"id": "${id}"`);

    const restored = run(restore!);
    expect(restored).toContain('"state": "active"');
    expect(lastLine(restored)).toBe('true');

    expect(run(erasure!)).toMatch(/"videos": [1-9]\d*,\s*"dryRun": true/);

    const operated = run(operators!).split('\n');
    expect(operated.slice(0, 2)).toEqual(['200', '200']);
    expect(operated).toContain('/api/videos/search');
  }, 120_000);

  /** The variables the blocks have set so far. */
  const variables = (): Record<string, string> => {
    const script = `set -a\nsource ${join(dir, 'state')}\necho "$ID"\necho "$AUTHOR"`;
    const [ID = '', AUTHOR = ''] = spawnSync('bash', ['-c', script], { encoding: 'utf8' }).stdout.split('\n');
    return { ID, AUTHOR };
  };
});
