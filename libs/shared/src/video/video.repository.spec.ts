import { paddedToMultiple } from './video.repository';

describe('paddedToMultiple', () => {
  it('keeps every item in order and repeats the last one up to the next multiple', () => {
    expect(paddedToMultiple(['a', 'b', 'c'], 4)).toEqual(['a', 'b', 'c', 'c']);
    expect(paddedToMultiple(['a', 'b', 'c', 'd'], 4)).toEqual(['a', 'b', 'c', 'd']);
    expect(paddedToMultiple(['a'], 10)).toEqual(Array(10).fill('a'));
    expect(paddedToMultiple([], 10)).toEqual([]);
  });

  it('gives every page size from 1 to 100 one of ten lengths', () => {
    const lengths = new Set(
      Array.from(
        { length: 100 },
        (_, i) =>
          paddedToMultiple(
            Array.from({ length: i + 1 }, (_, k) => k),
            10,
          ).length,
      ),
    );
    expect([...lengths].sort((a, b) => a - b)).toEqual([10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
  });
});
