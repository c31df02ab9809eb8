/**
 * The order of the sides in each round of an alternating comparison: a, b in even rounds and b, a
 * in odd ones (a b b a a b…). JVMs keep warming and a machine's neighbours come and go: with a
 * fixed order the side that always runs first would always take more of a trend that runs through
 * the whole comparison. Over an even number of rounds a steady trend falls on both sides alike.
 */
export function roundOrder<K>(sides: readonly K[], round: number): K[] {
  return round % 2 === 0 ? [...sides] : [...sides].reverse();
}

/**
 * Runs every side once per round, one at a time, in `roundOrder`, and returns each side's results
 * in the order they ran.
 */
export async function alternate<K extends string, T>(
  sides: Record<K, () => Promise<T>>,
  rounds: number,
): Promise<Record<K, T[]>> {
  const results = mapSides(sides, (): T[] => []);
  for (let round = 0; round < rounds; round++) {
    for (const name of roundOrder(Object.keys(sides) as K[], round)) results[name].push(await sides[name]());
  }
  return results;
}

/** Each side's `value` made another by `to`, by the same names. */
export function mapSides<K extends string, A, B>(
  sides: Record<K, A>,
  to: (value: A, name: K) => B,
): Record<K, B> {
  return Object.fromEntries(
    (Object.keys(sides) as K[]).map((name) => [name, to(sides[name], name)]),
  ) as Record<K, B>;
}
