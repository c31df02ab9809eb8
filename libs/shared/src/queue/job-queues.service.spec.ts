import { jitteredBackoff } from './job-queues.service';

describe('jitteredBackoff', () => {
  it('doubles each attempt, between half and the whole step', () => {
    expect(jitteredBackoff(1, 1_000, () => 0)).toBe(500);
    expect(jitteredBackoff(1, 1_000, () => 1)).toBe(1_000);
    expect(jitteredBackoff(4, 1_000, () => 0)).toBe(4_000);
    expect(jitteredBackoff(4, 1_000, () => 1)).toBe(8_000);
  });

  it('is capped at five minutes', () => {
    expect(jitteredBackoff(30, 1_000, () => 1)).toBe(300_000);
  });

  it('spreads retries of the same attempt', () => {
    const delays = new Set(Array.from({ length: 50 }, () => jitteredBackoff(3)));
    expect(delays.size).toBeGreaterThan(10);
  });
});
