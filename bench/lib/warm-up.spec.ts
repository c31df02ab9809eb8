import { jitShare, warmUntilSettled } from './warm-up';

/** A clock that moves `step` seconds at each reading after the first. */
function clock(step: number): () => number {
  let ms = -step * 1000;
  return () => (ms += step * 1000);
}

/** Rounds whose JIT shares are `shares`, in order (the last one repeats). */
function rounds(shares: number[]) {
  let i = 0;
  return () => {
    const share = shares[Math.min(i++, shares.length - 1)]!;
    return Promise.resolve({ elasticsearch: 10, 'elasticsearch-jit': 10 * share });
  };
}

describe('jitShare', () => {
  it('is the compiler threads’ part of Elasticsearch’s CPU', () => {
    expect(jitShare({ elasticsearch: 4, 'elasticsearch-jit': 1 })).toBe(0.25);
  });

  it('is 0 when Elasticsearch used no CPU, not a division by zero', () => {
    expect(jitShare({})).toBe(0);
  });
});

describe('warmUntilSettled', () => {
  const limits = { minSeconds: 20, maxSeconds: 100, settledJitShare: 0.01 };

  it('goes on until the compiler’s share has fallen to the threshold', async () => {
    const settled = await warmUntilSettled(rounds([0.2, 0.05, 0.02, 0.01, 0.001]), limits, clock(10));
    expect(settled).toEqual({ rounds: 4, seconds: 40, jitShare: 0.01 });
  });

  it('runs at least the minimum, however settled the first round', async () => {
    const settled = await warmUntilSettled(rounds([0]), limits, clock(5));
    expect(settled).toEqual({ rounds: 4, seconds: 20, jitShare: 0 });
  });

  it('runs at least the minimum of rounds, however quickly they pass', async () => {
    const settled = await warmUntilSettled(rounds([0]), { ...limits, minRounds: 3 }, clock(30));
    expect(settled).toEqual({ rounds: 3, seconds: 90, jitShare: 0 });
  });

  it('stops at the maximum and says how far the compiler was from settling', async () => {
    const settled = await warmUntilSettled(rounds([0.3]), limits, clock(30));
    expect(settled).toEqual({ rounds: 4, seconds: 120, jitShare: 0.3 });
  });
});
