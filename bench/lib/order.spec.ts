import { alternate, roundOrder } from './order';

describe('roundOrder', () => {
  it('swaps the sides every other round', () => {
    const order = [0, 1, 2, 3].flatMap((round) => roundOrder(['api', 'es'], round));
    expect(order).toEqual(['api', 'es', 'es', 'api', 'api', 'es', 'es', 'api']);
  });

  it('puts both sides at the same mean position over an even number of rounds', () => {
    const order = [0, 1, 2, 3, 4, 5].flatMap((round) => roundOrder(['a', 'b'], round));
    const meanPosition = (side: string) =>
      order.reduce((sum, name, i) => (name === side ? sum + i : sum), 0) / (order.length / 2);
    expect(meanPosition('a')).toBe(meanPosition('b'));
  });

  it('leaves the caller’s list alone', () => {
    const sides = ['a', 'b'];
    roundOrder(sides, 1);
    expect(sides).toEqual(['a', 'b']);
  });
});

describe('alternate', () => {
  it('runs the sides one at a time in roundOrder and keeps each side’s results apart', async () => {
    const ran: string[] = [];
    let running = 0;
    const side = (name: string) => async () => {
      running++;
      expect(running).toBe(1);
      ran.push(name);
      await Promise.resolve();
      running--;
      return `${name}${ran.length}`;
    };
    const results = await alternate({ worker: side('worker'), raw: side('raw') }, 3);
    expect(ran).toEqual(['worker', 'raw', 'raw', 'worker', 'worker', 'raw']);
    expect(results).toEqual({ worker: ['worker1', 'worker4', 'worker5'], raw: ['raw2', 'raw3', 'raw6'] });
  });
});
