import { churnDue, churnFigures, videosNeeded } from './churn';

const rate = { perSecond: 20, lagMs: 1000 };

describe('churnDue', () => {
  it('has the first delete due at once and the next every 1/rate seconds', () => {
    expect(churnDue(0, rate)).toEqual({ deletes: 1, restores: 0 });
    expect(churnDue(49, rate).deletes).toBe(1);
    expect(churnDue(50, rate).deletes).toBe(2);
    expect(churnDue(999, rate).deletes).toBe(20);
  });

  it('has each restore due the lag after its delete', () => {
    expect(churnDue(999, rate).restores).toBe(0);
    expect(churnDue(1000, rate).restores).toBe(1);
    expect(churnDue(1050, rate).restores).toBe(2);
  });

  it('keeps both at the rate, the restores a lag behind the deletes', () => {
    for (const ms of [10_000, 60_000, 3_600_000]) {
      const { deletes, restores } = churnDue(ms, rate);
      expect(deletes).toBe((ms / 1000) * rate.perSecond + 1);
      expect(deletes - restores).toBe((rate.lagMs / 1000) * rate.perSecond);
    }
  });

  it('follows another rate and lag', () => {
    expect(churnDue(2_000, { perSecond: 5, lagMs: 500 })).toEqual({ deletes: 11, restores: 8 });
  });
});

describe('videosNeeded', () => {
  it('is ten times the videos deleted at any moment', () => {
    expect(videosNeeded(rate)).toBe(200);
    expect(videosNeeded({ perSecond: 5, lagMs: 500 })).toBe(30);
  });
});

describe('churnFigures', () => {
  it('counts each kind, the failures apart, and the latency of the answered ones only', () => {
    const figures = churnFigures([
      { kind: 'delete', ms: 10 },
      { kind: 'delete', ms: 500, error: 'DELETE 500' },
      { kind: 'restore', ms: 20 },
      { kind: 'delete', ms: 30 },
      { kind: 'restore', ms: 1, error: 'POST 409' },
      { kind: 'restore', ms: 2, error: 'POST 409' },
    ]);
    expect(figures).toEqual({
      deletes: 3,
      restores: 3,
      errors: 3,
      p50: 20,
      p99: 30,
      failures: ['DELETE 500', 'POST 409'],
    });
  });

  it('gives zeros for no requests', () => {
    expect(churnFigures([])).toEqual({ deletes: 0, restores: 0, errors: 0, p50: 0, p99: 0, failures: [] });
  });
});
