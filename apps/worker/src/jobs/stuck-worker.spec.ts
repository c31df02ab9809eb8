import fc from 'fast-check';
import { checkConsumer, STUCK_AFTER_MS, type ConsumerWatch } from './stuck-worker';

/** Runs the self-check over a list of observations, in order, from a consumer started at 0. */
function verdicts(checks: { waiting: number; running: number; now: number; took?: boolean }[]): boolean[] {
  let watch: ConsumerWatch = { takenAt: 0 };
  return checks.map(({ took, ...seen }) => {
    if (took) watch = { ...watch, takenAt: seen.now - 1 };
    const verdict = checkConsumer(watch, seen);
    watch = verdict.watch;
    return verdict.stuck;
  });
}

describe('checkConsumer', () => {
  it('finds stuck a consumer that ran and took nothing while jobs waited from one check to one STUCK_AFTER_MS later', () => {
    expect(
      verdicts([
        { waiting: 3, running: 0, now: 1_000 },
        { waiting: 3, running: 0, now: 1_000 + STUCK_AFTER_MS - 1 },
        { waiting: 5, running: 0, now: 1_000 + STUCK_AFTER_MS },
      ]),
    ).toEqual([false, false, true]);
  });

  it('never finds stuck a consumer whose queue had nothing waiting, or that ran a job, at a check', () => {
    const check = fc.record({
      waiting: fc.nat(10),
      running: fc.nat(4),
      step: fc.integer({ min: 1, max: 120_000 }),
    });
    fc.assert(
      fc.property(fc.array(check, { maxLength: 30 }), (checks) => {
        let now = 0;
        const seen = checks.map(({ step, ...rest }) => ({ ...rest, now: (now += step) }));
        const stuck = verdicts(seen);
        // Stuck only at a check that saw jobs waiting and none running, after a run of such
        // checks spanning STUCK_AFTER_MS.
        stuck.forEach((isStuck, n) => {
          if (!isStuck) return;
          const since = seen.slice(0, n + 1).findLastIndex((s) => s.waiting === 0 || s.running > 0);
          const first = seen[since + 1]!;
          expect(seen[n]!.waiting).toBeGreaterThan(0);
          expect(seen[n]!.running).toBe(0);
          expect(seen[n]!.now - first.now).toBeGreaterThanOrEqual(STUCK_AFTER_MS);
        });
      }),
    );
  });

  it('starts over when the consumer takes a job, however long jobs had waited before', () => {
    fc.assert(
      fc.property(fc.integer({ min: STUCK_AFTER_MS, max: 3_600_000 }), (idle) => {
        expect(
          verdicts([
            { waiting: 2, running: 0, now: 1_000 },
            { waiting: 2, running: 0, now: 1_000 + idle, took: true },
            { waiting: 2, running: 0, now: 1_000 + idle + STUCK_AFTER_MS - 1 },
            { waiting: 2, running: 0, now: 1_000 + idle + STUCK_AFTER_MS },
          ]),
        ).toEqual([false, false, false, true]);
      }),
    );
  });
});
