/**
 * The catalogue sizes a run measures search at, as `--sizes` gives them: videos of the realistic
 * catalogue imported on top of the sample (0: the sample alone), comma-separated, `_` allowed as a
 * thousands separator (`0,200_000,1_000_000`). Each size once, smallest first: the small ones
 * report in minutes, before the million takes its hour.
 */
export function parseSizes(text: string): number[] {
  const sizes = text.split(',').map((part) => {
    const digits = part.trim().replaceAll('_', '');
    if (!/^\d+$/.test(digits)) throw new Error(`--sizes: "${part.trim()}" is not a count of videos`);
    return Number(digits);
  });
  return [...new Set(sizes)].sort((a, b) => a - b);
}
