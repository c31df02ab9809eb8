import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HEAP_RULE } from '@app/shared/config/node-heap';
import { ENTRY, runProcess } from '../support/processes';

interface Probe {
  pid: number;
  execArgv: string[];
  heapLimit: number;
}

interface Kind {
  name: string;
  entry: string;
  rule: Record<string, number>;
  args: string[];
  /** A setting that stops it at once (exit 78), so that no service is needed. */
  env: Record<string, string>;
}

/** Each product process, started as an operator would: plain `node <entry>`. */
const KINDS: Kind[] = [
  { name: 'api', entry: ENTRY.api, rule: HEAP_RULE.api, args: [], env: { PORT: 'eighty' } },
  { name: 'worker', entry: ENTRY.worker, rule: HEAP_RULE.worker, args: [], env: { WORKER_CONCURRENCY: '0' } },
  {
    name: 'cli',
    entry: ENTRY.cli,
    rule: HEAP_RULE.worker,
    args: ['migrate'],
    env: { S3_FORCE_PATH_STYLE: 'maybe' },
  },
];

const flags = (rule: Record<string, number>) =>
  Object.entries(rule).map(([name, value]) => `--${name}=${value}`);

/**
 * Every product process runs with its kind's heap rule (libs/shared/src/config/node-heap.ts)
 * however it is started, and an operator's NODE_OPTIONS wins over it. A probe loaded through
 * NODE_OPTIONS reports each program the process runs: the Node flags and V8's heap limit.
 */
describe('the heap rule', () => {
  let dir: string;
  let probe: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'heap-rule-'));
    probe = join(dir, 'probe.cjs');
    writeFileSync(
      probe,
      `process.stderr.write('heap-probe ' + JSON.stringify({ pid: process.pid, execArgv: process.execArgv, ` +
        `heapLimit: require('node:v8').getHeapStatistics().heap_size_limit }) + '\\n');\n`,
    );
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const run = async (kind: Kind, nodeOptions = '') => {
    const result = await runProcess(kind.entry, kind.args, {
      ...kind.env,
      NODE_OPTIONS: `--require ${probe} ${nodeOptions}`,
    });
    // The setting stopped it, after the restart: the rule is applied before the configuration is read.
    expect(result.code).toBe(78);
    return result.output
      .split('\n')
      .filter((line) => line.startsWith('heap-probe '))
      .map((line) => JSON.parse(line.slice('heap-probe '.length)) as Probe);
  };

  it.each(KINDS)(
    '$name restarts in place with its rule when started without it',
    async (kind) => {
      const [started, restarted, ...more] = await run(kind);
      expect(more).toEqual([]);
      expect(restarted!.pid).toBe(started!.pid);
      expect(started!.execArgv).toEqual([]);
      expect(restarted!.execArgv).toEqual(flags(kind.rule));
    },
    60_000,
  );

  it("keeps an operator's cap from NODE_OPTIONS and adds only the rest of the rule", async () => {
    const worker = KINDS.find((kind) => kind.name === 'worker')!;
    const [ruled] = (await run(worker)).slice(-1);
    const [own] = (await run(worker, '--max-old-space-size=1024')).slice(-1);
    expect(own!.execArgv).toEqual(flags(HEAP_RULE.worker).filter((flag) => !flag.startsWith('--max-old')));
    expect(own!.heapLimit).toBeGreaterThan(ruled!.heapLimit);
    // With the whole rule given, nothing is restarted.
    expect(await run(worker, flags(HEAP_RULE.worker).join(' '))).toHaveLength(1);
  }, 60_000);
});
