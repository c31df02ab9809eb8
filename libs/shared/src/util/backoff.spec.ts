import { jitteredBackoff, type Backoff } from './backoff';

const HOUR = 3_600_000;

describe('jitteredBackoff', () => {
  describe("with the job queues' steps (1 s, capped at 5 minutes)", () => {
    const jobs: Backoff = { baseMs: 1_000, maxMs: 300_000 };

    it('doubles each attempt, between half and the whole step', () => {
      expect(jitteredBackoff(1, jobs, () => 0)).toBe(500);
      expect(jitteredBackoff(1, jobs, () => 1)).toBe(1_000);
      expect(jitteredBackoff(4, jobs, () => 0)).toBe(4_000);
      expect(jitteredBackoff(4, jobs, () => 1)).toBe(8_000);
    });

    it('is capped at five minutes', () => {
      expect(jitteredBackoff(30, jobs, () => 1)).toBe(300_000);
    });

    it('spreads retries of the same attempt', () => {
      const delays = new Set(Array.from({ length: 50 }, () => jitteredBackoff(3, jobs)));
      expect(delays.size).toBeGreaterThan(10);
    });
  });

  describe("with webhook deliveries' steps (5 s, capped at 2 hours)", () => {
    const deliveries: Backoff = { baseMs: 5_000, maxMs: 2 * HOUR };

    it('doubles from the base with each failure, up to the maximum, jittered between half and the whole', () => {
      expect([1, 2, 3, 4].map((n) => jitteredBackoff(n, deliveries, () => 1))).toEqual([
        5_000, 10_000, 20_000, 40_000,
      ]);
      expect(jitteredBackoff(1, deliveries, () => 0)).toBe(2_500);
      expect(jitteredBackoff(30, deliveries, () => 1)).toBe(2 * HOUR);
      expect(jitteredBackoff(1_000, deliveries, () => 1)).toBe(2 * HOUR);
    });
  });
});
