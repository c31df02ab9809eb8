import { mergeRuns } from './stats';

describe('mergeRuns', () => {
  it('takes percentiles over every call of every round and the rate over their summed time', () => {
    const merged = mergeRuns([
      { latencies: [10, 30], seconds: 1, errors: 0 },
      { latencies: [20, 40, 50, 60], seconds: 2, errors: 1 },
    ]);
    expect(merged).toEqual({ requests: 6, seconds: 3, perSecond: 2, p50: 30, p99: 60, errors: 1 });
  });
});
