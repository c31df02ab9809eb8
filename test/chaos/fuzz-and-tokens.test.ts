import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { record } from './results';

const run = promisify(execFile);
const ROOT = resolve(__dirname, '../..');

/**
 * Scenarios 5 and 6 reuse the end-to-end suites at full strength: 10,000 generated requests over
 * every route and parameter, every token attack of docs/contract.md §3 with oversized headers, and
 * ten times the `npm test` runs of the boundary properties (valid → 2xx, invalid → 400).
 */
describe('chaos: fuzzing and token attacks', () => {
  it.each([
    [
      'fuzzing',
      'test/e2e/fuzz.test.ts',
      '10,000 generated requests over every route and parameter',
      'zero 500s; every 4xx problem+json; healthy after',
    ],
    [
      'token attacks',
      'test/e2e/auth.test.ts',
      'every contract §3 token attack, 8 KB and 20 KB tokens',
      'all 401 (431 for oversized headers), none 500',
    ],
    [
      'boundaries',
      'test/e2e/boundaries.test.ts',
      '12,000 generated cases at and around every documented parameter boundary',
      'every valid request 2xx with its body; every invalid one a 400 problem; none 5xx',
    ],
  ])(
    '%s',
    async (scenario, file, load, expected) => {
      const result = await run(
        process.execPath,
        [resolve(ROOT, 'node_modules/.bin/jest'), '--selectProjects', 'e2e', '--runInBand', file],
        {
          cwd: ROOT,
          env: { ...process.env, FUZZ_RUNS: '10000', BOUNDARY_RUNS: '1200' },
          maxBuffer: 64 * 2 ** 20,
        },
      ).then(
        (r) => ({ ok: true, output: r.stderr + r.stdout }),
        (error: { stderr?: string; stdout?: string }) => ({
          ok: false,
          output: `${error.stderr ?? ''}${error.stdout ?? ''}`,
        }),
      );
      const tests = /Tests:\s+(.*)/.exec(result.output)?.[1] ?? 'no summary';
      record({
        scenario,
        load,
        faults: 'malformed and hostile input',
        expected,
        observed: tests,
        met: result.ok,
      });
      expect(result.ok).toBe(true);
    },
    900_000,
  );
});
