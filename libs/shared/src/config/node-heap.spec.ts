import { HEAP_RULE, missingHeapFlags } from './node-heap';

const flags = (rule: Record<string, number>) =>
  Object.entries(rule).map(([name, value]) => `--${name}=${value}`);
const youngGeneration = flags(HEAP_RULE.worker).filter((flag) => flag.startsWith('--max-semi-space-size='));

describe('missingHeapFlags', () => {
  it('gives every flag of the kind when the process was started with none', () => {
    expect(missingHeapFlags('worker', [])).toEqual(flags(HEAP_RULE.worker));
    expect(missingHeapFlags('api', ['--enable-source-maps'], '--title=api')).toEqual(flags(HEAP_RULE.api));
  });

  it('gives none once the rule is on the command line: a restarted process is not restarted again', () => {
    expect(missingHeapFlags('worker', flags(HEAP_RULE.worker))).toEqual([]);
    expect(missingHeapFlags('api', flags(HEAP_RULE.api))).toEqual([]);
  });

  it("keeps an operator's own value, from NODE_OPTIONS or the command line, in either spelling", () => {
    expect(missingHeapFlags('worker', [], '--max-old-space-size=1024')).toEqual(youngGeneration);
    expect(missingHeapFlags('worker', ['--max_old_space_size=1024'])).toEqual(youngGeneration);
    expect(missingHeapFlags('worker', [], ' --max-semi-space-size=8  --max-old-space-size=512 ')).toEqual([]);
    // Node gives the share of the machine's memory precedence over a size.
    expect(missingHeapFlags('worker', [], '--max-old-space-size-percentage=50%')).toEqual(youngGeneration);
  });
});
