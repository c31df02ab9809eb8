import { parseSizes } from './step';

describe('parseSizes', () => {
  it('reads counts, smallest first, each once', () => {
    expect(parseSizes('1000000,0,200000')).toEqual([0, 200_000, 1_000_000]);
    expect(parseSizes('20000, 0 ,20000')).toEqual([0, 20_000]);
    expect(parseSizes('0')).toEqual([0]);
  });

  it('takes _ as a thousands separator', () => {
    expect(parseSizes('0,200_000,1_000_000')).toEqual([0, 200_000, 1_000_000]);
  });

  it.each(['', '0,', '-5', '1.5', '20k', 'million', '0;20000'])('refuses %p', (text) => {
    expect(() => parseSizes(text)).toThrow(/--sizes/);
  });
});
