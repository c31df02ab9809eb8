/**
 * Seeded randomness for generated bench data: the same seed gives the same data on every machine
 * and every Node version (no `Math.random`, no iteration order of anything unordered).
 */

/**
 * A small LCG (modulo 2^31): the known-item queries are drawn with it, so every run (and every
 * published relevance result) asks the same questions. New generated data uses `prng`.
 */
export function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/**
 * sfc32 (Chris Doty-Humphrey's small fast counting generator), seeded through splitmix32: 128 bits
 * of state, a period far beyond the few hundred million draws a million videos take, and it passes
 * PractRand. An LCG modulo 2^31, as the query mixes use, repeats structure in consecutive draws.
 * Returns floats in [0, 1).
 */
export function prng(seed: number): () => number {
  let s = seed >>> 0;
  const splitmix32 = () => {
    s = (s + 0x9e3779b9) | 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = splitmix32();
  let b = splitmix32();
  let c = splitmix32();
  let d = splitmix32();
  const next = () => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  // The first outputs still carry the seed's pattern.
  for (let i = 0; i < 12; i++) next();
  return next;
}

/**
 * The first index in `cumulative[from, to)` whose running total exceeds `target`: draws an index
 * in proportion to its weight when `target` is uniform in [cumulative[from - 1] (or 0), cumulative[to - 1]).
 */
export function searchCumulative(
  cumulative: ArrayLike<number>,
  from: number,
  to: number,
  target: number,
): number {
  let low = from;
  let high = to - 1;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (cumulative[middle]! <= target) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Draws indexes 0…n-1 in proportion to fixed weights: O(log n) a draw, 8 bytes an index. */
export class WeightedIndex {
  private readonly cumulative: Float64Array;

  constructor(weights: ArrayLike<number>) {
    if (weights.length === 0) throw new Error('nothing to draw from');
    this.cumulative = new Float64Array(weights.length);
    let total = 0;
    for (let i = 0; i < weights.length; i++) this.cumulative[i] = total += weights[i]!;
    if (!(total > 0)) throw new Error('weights must add up to more than 0');
  }

  get size(): number {
    return this.cumulative.length;
  }

  draw(random: () => number): number {
    const total = this.cumulative[this.cumulative.length - 1]!;
    return searchCumulative(this.cumulative, 0, this.cumulative.length, random() * total);
  }
}

/** Draws values in proportion to how often they were counted (e.g. a tag's uses in the sample). */
export class Weighted<T> {
  private readonly values: T[];
  private readonly index: WeightedIndex;

  /** Most frequent first; ties in the order counted, so the same counts give the same draws. */
  constructor(counts: Map<T, number>) {
    const entries = [...counts].sort((x, y) => y[1] - x[1]);
    this.values = entries.map(([value]) => value);
    this.index = new WeightedIndex(entries.map(([, count]) => count));
  }

  /** The values, most frequent first. */
  ranked(): readonly T[] {
    return this.values;
  }

  draw(random: () => number): T {
    return this.values[this.index.draw(random)]!;
  }

  /** `count` different values (fewer when there are not that many), each drawn by weight. */
  drawDistinct(count: number, random: () => number): T[] {
    const drawn = new Set<T>();
    const wanted = Math.min(count, this.values.length);
    // Rejection stays cheap: a record takes a handful of values out of thousands.
    while (drawn.size < wanted) drawn.add(this.draw(random));
    return [...drawn];
  }
}

/** Zipf's law over ranks 0…n-1: rank k is drawn in proportion to 1 / (k + 1)^exponent. */
export function zipf(n: number, exponent: number): WeightedIndex {
  return new WeightedIndex(Float64Array.from({ length: n }, (_, k) => (k + 1) ** -exponent));
}
