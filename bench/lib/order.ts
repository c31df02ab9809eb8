/**
 * The order of the sides in each round of an alternating comparison: a, b in even rounds and b, a
 * in odd ones (a b b a a b…). JVMs keep warming and a machine's neighbours come and go: with a
 * fixed order the side that always runs first would always take more of a trend that runs through
 * the whole comparison. Over an even number of rounds a steady trend falls on both sides alike.
 */
export function roundOrder<K>(sides: readonly K[], round: number): K[] {
  return round % 2 === 0 ? [...sides] : [...sides].reverse();
}
