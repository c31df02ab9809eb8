import { eachLimited } from './each-limited';

describe('eachLimited', () => {
  it('runs every item, never more than the limit at a time', async () => {
    let running = 0;
    let most = 0;
    const seen: number[] = [];
    await eachLimited([1, 2, 3, 4, 5, 6, 7], 3, async (item) => {
      running += 1;
      most = Math.max(most, running);
      await new Promise((done) => setTimeout(done, 5));
      seen.push(item);
      running -= 1;
    });
    expect(seen.sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(most).toBe(3);
  });

  it('starts nothing more after a failure, and rethrows it', async () => {
    const started: number[] = [];
    const run = eachLimited([1, 2, 3, 4, 5, 6], 2, async (item) => {
      started.push(item);
      if (item === 2) throw new Error('Redis is away');
      await new Promise((done) => setTimeout(done, 5));
    });
    await expect(run).rejects.toThrow('Redis is away');
    expect(started).toEqual([1, 2]);
  });
});
