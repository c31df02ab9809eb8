import { VerifiedTokens } from './verified-tokens';

describe('VerifiedTokens', () => {
  let now = 1_000_000;
  const clock = () => now;

  beforeEach(() => {
    now = 1_000_000;
  });

  it('answers a verified token until its exp', () => {
    const tokens = new VerifiedTokens<string>(10, 60_000, clock);
    tokens.set('a', 'alice', now / 1000 + 30);
    expect(tokens.get('a')).toBe('alice');
    now += 29_999;
    expect(tokens.get('a')).toBe('alice');
    now += 1;
    expect(tokens.get('a')).toBeUndefined();
    expect(tokens.size).toBe(0);
  });

  it('forgets a token after maxAgeMs even when its exp is later', () => {
    const tokens = new VerifiedTokens<string>(10, 60_000, clock);
    tokens.set('a', 'alice', now / 1000 + 3_600);
    now += 60_000;
    expect(tokens.get('a')).toBeUndefined();
  });

  it('never stores a token that has already expired', () => {
    const tokens = new VerifiedTokens<string>(10, 60_000, clock);
    tokens.set('a', 'alice', now / 1000 - 1);
    expect(tokens.get('a')).toBeUndefined();
    expect(tokens.size).toBe(0);
  });

  it('stays within its capacity by dropping the oldest entry', () => {
    const tokens = new VerifiedTokens<number>(3, 60_000, clock);
    for (let i = 0; i < 5; i++) tokens.set(`t${i}`, i, now / 1000 + 30);
    expect(tokens.size).toBe(3);
    expect(tokens.get('t0')).toBeUndefined();
    expect(tokens.get('t1')).toBeUndefined();
    expect([tokens.get('t2'), tokens.get('t3'), tokens.get('t4')]).toEqual([2, 3, 4]);
  });

  it('answers nothing for a token it never saw', () => {
    expect(new VerifiedTokens<string>().get('unknown')).toBeUndefined();
  });
});
