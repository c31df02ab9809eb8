import { videoSummary } from '@test/fakes/fake-active-videos';
import { ItemHeadCache, renderItemHead } from './item-heads';

const video = videoSummary('0b8e4b5e-3d9c-4c1e-9a44-8f2c1d0e7a61', {
  description: 'a description '.repeat(10),
});

describe('ItemHeadCache', () => {
  it('gives back a head read at or after the time asked for, until it is dropped', () => {
    const cache = new ItemHeadCache(1 << 20);
    const v3 = videoSummary('v3');
    expect(cache.get(v3.id, 0)).toBeUndefined();
    const head = renderItemHead(v3);
    cache.keep(v3.id, head, 1_000);
    expect(cache.get(v3.id, 1_000)).toBe(head);
    expect(cache.get(v3.id, 1_001)).toBeUndefined();
    cache.drop(v3.id);
    expect(cache.get(v3.id, 0)).toBeUndefined();
    cache.keep(v3.id, head, 1_000);
    cache.clear();
    expect(cache.get(v3.id, 0)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('stays within its byte budget, dropping the least recently used', () => {
    const one = videoSummary('a', { description: 'x'.repeat(400) });
    const headBytes = renderItemHead(one).length;
    const cache = new ItemHeadCache(3 * (headBytes + 200));
    const keep = (id: string) => cache.keep(id, renderItemHead({ ...one, id }), 0);
    for (const id of ['a', 'b', 'c']) keep(id);
    expect(cache.get('a', 0)).toBeDefined(); // now the most recently used
    keep('d');
    expect(cache.get('b', 0)).toBeUndefined();
    expect(['a', 'c', 'd'].map((id) => cache.get(id, 0) !== undefined)).toEqual([true, true, true]);
    expect(cache.size).toBeLessThanOrEqual(3 * (headBytes + 200));
  });

  it('keeps nothing with a budget of 0, and no head larger than the budget', () => {
    const off = new ItemHeadCache(0);
    off.keep(video.id, renderItemHead(video), 0);
    expect(off.get(video.id, 0)).toBeUndefined();
    const small = new ItemHeadCache(100);
    const head = renderItemHead(video);
    expect(head.length).toBeGreaterThan(100);
    small.keep(video.id, head, 0);
    expect(small.get(video.id, 0)).toBeUndefined();
    expect(small.size).toBe(0);
  });
});
