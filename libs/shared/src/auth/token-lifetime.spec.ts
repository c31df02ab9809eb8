import fc from 'fast-check';
import { CLOCK_TOLERANCE_SECONDS, expiresWithinLifetime, ttlProblem } from './token-lifetime';

const DAY = 86_400;
const MAX = 30 * DAY;
const NOW_MS = Date.UTC(2026, 10, 28, 9, 0, 0);
const now = NOW_MS / 1000;

describe('expiresWithinLifetime (contract §3)', () => {
  it.each<[string, unknown, boolean]>([
    ['in an hour', now + 3600, true],
    ['exactly the lifetime ahead', now + MAX, true],
    ['the lifetime and the clock leeway ahead', now + MAX + CLOCK_TOLERANCE_SECONDS, true],
    ['a second past that', now + MAX + CLOCK_TOLERANCE_SECONDS + 1, false],
    ['a fraction of a second past that', now + MAX + CLOCK_TOLERANCE_SECONDS + 0.001, false],
    ['31 days ahead', now + 31 * DAY, false],
    ['1e300', 1e300, false],
    ['Infinity (JSON 1e999)', Infinity, false],
    ['-Infinity', -Infinity, false],
    ['NaN', NaN, false],
    ['a number as a string', String(now + 60), false],
    ['absent', undefined, false],
    ['null', null, false],
    // An expired token is jsonwebtoken's to refuse; this rule bounds only how far ahead.
    ['in the past', now - 60, true],
  ])('%s → %p', (_name, exp, ok) => {
    expect(expiresWithinLifetime(exp, MAX, NOW_MS)).toBe(ok);
  });

  it('accepts exactly the finite times up to the lifetime and the leeway ahead', () => {
    fc.assert(
      fc.property(fc.double(), fc.integer({ min: 60, max: 31_536_000 }), (offset, max) => {
        const exp = now + offset;
        const expected = Number.isFinite(exp) && exp <= now + max + CLOCK_TOLERANCE_SECONDS;
        expect(expiresWithinLifetime(exp, max, NOW_MS)).toBe(expected);
      }),
    );
  });
});

describe('ttlProblem (cli token --ttl)', () => {
  it('signs up to the lifetime, and refuses longer, saying why', () => {
    expect(ttlProblem(MAX, MAX)).toBeUndefined();
    expect(ttlProblem(3600, MAX)).toBeUndefined();
    expect(ttlProblem(MAX + 1, MAX)).toMatch(/longer than JWT_MAX_LIFETIME \(2592000 s\)/);
  });
});
