import { promptRetryBackoff } from './search.client';

describe('promptRetryBackoff', () => {
  it('waits 50–100 ms before the first retry and 100–200 ms before the second', () => {
    expect(promptRetryBackoff(0, 4, 1, () => 0)).toBeCloseTo(0.05);
    expect(promptRetryBackoff(0, 4, 1, () => 0.999)).toBeLessThan(0.1);
    expect(promptRetryBackoff(0, 4, 2, () => 0)).toBeCloseTo(0.1);
    expect(promptRetryBackoff(0, 4, 2, () => 0.999)).toBeLessThan(0.2);
  });

  it('keeps the two retries of a request under half a second in all, where the default took 3–6 s', () => {
    expect(promptRetryBackoff(0, 4, 1, () => 0.999) + promptRetryBackoff(0, 4, 2, () => 0.999)).toBeLessThan(
      0.5,
    );
  });
});
