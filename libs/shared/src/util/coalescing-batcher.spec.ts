import { CoalescingBatcher } from './coalescing-batcher';

/** A `send` whose batches are answered by hand, to control what is in flight. */
function controlledSend() {
  const calls: {
    items: string[];
    answer: (errors: (Error | undefined)[]) => void;
    fail: (e: Error) => void;
  }[] = [];
  const send = (items: string[]) =>
    new Promise<(Error | undefined)[]>((answer, fail) => calls.push({ items, answer, fail }));
  return { calls, send };
}

const settle = () => new Promise((done) => setImmediate(done));

describe('CoalescingBatcher', () => {
  it('sends the first item at once and the items that arrive meanwhile together', async () => {
    const { calls, send } = controlledSend();
    const batcher = new CoalescingBatcher(send);
    const first = batcher.add('a');
    const rest = ['b', 'c', 'd'].map((item) => batcher.add(item));
    expect(calls.map((c) => c.items)).toEqual([['a']]);

    calls[0]!.answer([undefined]);
    await first;
    await settle();
    expect(calls.map((c) => c.items)).toEqual([['a'], ['b', 'c', 'd']]);
    calls[1]!.answer([undefined, undefined, undefined]);
    await Promise.all(rest);
  });

  it('rejects only the items whose entry is an error, and every item of a failed batch', async () => {
    const { calls, send } = controlledSend();
    const batcher = new CoalescingBatcher(send);
    const blocker = batcher.add('x');
    const [ok, bad] = [batcher.add('ok'), batcher.add('bad')];
    calls[0]!.answer([undefined]);
    await blocker;
    await settle();
    calls[1]!.answer([undefined, new Error('bad failed')]);
    await expect(ok).resolves.toBeUndefined();
    await expect(bad).rejects.toThrow('bad failed');

    const lost = batcher.add('lost');
    await settle();
    calls[2]!.fail(new Error('connection refused'));
    await expect(lost).rejects.toThrow('connection refused');
  });

  it('caps a batch at maxBatch items and keeps the rest for the next one', async () => {
    const { calls, send } = controlledSend();
    const batcher = new CoalescingBatcher(send, 2);
    const all = ['a', 'b', 'c', 'd'].map((item) => batcher.add(item));
    for (let i = 0; i < 3; i++) {
      calls[i]!.answer(calls[i]!.items.map(() => undefined));
      await settle();
    }
    await Promise.all(all);
    expect(calls.map((c) => c.items)).toEqual([['a'], ['b', 'c'], ['d']]);
  });
});
