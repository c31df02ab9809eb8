import { nextAttemptAfterFailure, type RetryPolicy } from './webhook-retry';

const HOUR = 3_600_000;
const policy: RetryPolicy = { baseMs: 5_000, maxMs: 2 * HOUR, windowMs: 72 * HOUR };

describe('nextAttemptAfterFailure', () => {
  const now = new Date('2026-11-23T12:00:00Z');

  it('schedules the next attempt after a first failure', () => {
    expect(nextAttemptAfterFailure({ failures: 1, firstFailedAt: null }, now, policy, () => 1)).toEqual(
      new Date(now.getTime() + 5_000),
    );
  });

  it('keeps retrying until 72 hours after the first failure, then gives up', () => {
    const at = (msAgo: number) => ({ failures: 40, firstFailedAt: new Date(now.getTime() - msAgo) });
    expect(nextAttemptAfterFailure(at(72 * HOUR - 1), now, policy)).not.toBeNull();
    expect(nextAttemptAfterFailure(at(72 * HOUR), now, policy)).toBeNull();
  });

  it('retries for the whole window: the attempts it schedules span at least 72 hours', () => {
    let clock = now.getTime();
    let firstFailedAt: Date | null = null;
    let failures = 0;
    for (;;) {
      failures += 1;
      const next = nextAttemptAfterFailure({ failures, firstFailedAt }, new Date(clock), policy, () => 0);
      firstFailedAt ??= new Date(clock);
      if (!next) break;
      clock = next.getTime();
    }
    expect(clock - now.getTime()).toBeGreaterThanOrEqual(72 * HOUR);
    expect(failures).toBeLessThan(200);
  });
});
