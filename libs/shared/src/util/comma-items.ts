/**
 * The items of a comma-separated value (a setting such as REDIS_URL, a parameter such as `facets`),
 * in order, each without the spaces around it. An empty item is kept: the caller refuses or skips it.
 */
export function commaItems(value: string): string[] {
  return value.split(',').map((item) => item.trim());
}
