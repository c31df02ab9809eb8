/**
 * Runs `work` over `items`, at most `limit` at a time, stopping at the first failure (which it
 * rethrows once the calls under way have settled).
 */
export async function eachLimited<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const runner = async () => {
    while (!failure && next < items.length) {
      const item = items[next++]!;
      await work(item).catch((error: unknown) => {
        failure ??= { error };
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, runner));
  if (failure) throw failure.error;
}
