import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Report, Target } from './report';

const WIDTH = 960;
/** The bars' room at the least, however long the names beside them (a size and a state in each). */
const MIN_PLOT_WIDTH = 480;
const ROW = 34;
const GAP = 14;
const FONT = 14;
/** No browser measures the text here: a generous mean width per character of a 14 px sans-serif. */
const CHAR_WIDTH = 7.6;
const MET = '#2e7d32';
const MISSED = '#c62828';

/** Text and attribute values are data (target names, goals): escaped so that any of them stays XML. */
export function escapeXml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!,
  );
}

/** Ratio targets name their two sides as "product / baseline"; the others are absolute figures. */
function isRatio(target: Target): boolean {
  return target.name.includes(' / ');
}

/** The bound in a goal such as "≤ 1.2" or "< 512"; undefined when there is none to draw. */
export function goalBound(goal: string): number | undefined {
  const match = /-?\d+(?:\.\d+)?/.exec(goal);
  return match ? Number(match[0]) : undefined;
}

const num = (v: number) => Number(v.toFixed(1)).toString();

/**
 * The report's targets as an SVG bar chart: the ratios on one shared axis with the baseline (1.0)
 * dashed, each absolute figure on an axis of its own; every bar carries its goal as a black tick,
 * green when the target is met, red when not.
 */
export function chartSvg(report: Pick<Report, 'targets' | 'date' | 'mode'>): string {
  const ratios = report.targets.filter(isRatio);
  const absolutes = report.targets.filter((t) => !isRatio(t));
  const labelWidth = Math.ceil(Math.max(10, ...report.targets.map((t) => t.name.length)) * CHAR_WIDTH);
  const left = 20 + labelWidth + 10;
  // Room on the right for the value and goal printed after the longest bar.
  const width = Math.max(WIDTH, left + MIN_PLOT_WIDTH + 150);
  const plotWidth = width - left - 150;
  const parts: string[] = [];
  let y = 34;

  const text = (x: number, ty: number, content: string, attributes = '') =>
    `<text x="${num(x)}" y="${num(ty)}"${attributes}>${escapeXml(content)}</text>`;
  const heading = (content: string) => {
    y += 24;
    parts.push(text(20, y, content, ' font-weight="bold"'));
    y += 12;
  };
  /** `clearOf`: an x the value text must start right of, so that it never crosses the baseline. */
  const bar = (target: Target, scale: (v: number) => number, clearOf = 0) => {
    const bound = goalBound(target.goal);
    const end = scale(Math.max(0, target.value));
    parts.push(
      `<g class="target">`,
      text(left - 10, y + ROW / 2 + 5, target.name, ' text-anchor="end"'),
      `<rect class="bar" x="${num(left)}" y="${num(y)}" width="${num(end - left)}" height="${ROW}" fill="${target.met ? MET : MISSED}"/>`,
      ...(bound === undefined
        ? []
        : [
            `<line class="goal" x1="${num(scale(bound))}" y1="${num(y - 4)}" x2="${num(scale(bound))}" y2="${num(y + ROW + 4)}" stroke="#000" stroke-width="2"/>`,
          ]),
      text(
        Math.max(end, bound === undefined ? end : scale(bound), clearOf) + 6,
        y + ROW / 2 + 5,
        `${target.value.toFixed(2)} (goal ${target.goal})`,
      ),
      '</g>',
    );
    y += ROW + GAP;
  };
  const axis = (max: number) => (v: number) => left + (v / max) * plotWidth;
  const reach = (t: Target) => Math.max(t.value, goalBound(t.goal) ?? 0);

  parts.push(
    text(
      20,
      y,
      `Benchmark targets, ${report.mode} run of ${report.date.slice(0, 10)}`,
      ' font-size="18" font-weight="bold"',
    ),
  );
  y += 22;
  parts.push(text(20, y, 'green: target met, red: missed; black tick: the goal', ' fill="#555"'));

  if (ratios.length > 0) {
    heading('Ratio to the baseline measured in the same run (dashed: equal to the baseline)');
    const scale = axis(Math.max(1.6, ...ratios.map(reach)) * 1.05);
    const baseline = scale(1);
    const top = y - 4;
    for (const target of ratios) bar(target, scale, baseline);
    const bottom = y - GAP + 4;
    // Over the bars: a ratio above 1 shows where its bar passes the baseline.
    parts.push(
      `<line class="baseline" x1="${num(baseline)}" y1="${num(top)}" x2="${num(baseline)}" y2="${num(bottom)}" stroke="#888" stroke-dasharray="4"/>`,
      text(baseline, bottom + 14, '1.0', ' text-anchor="middle" fill="#555"'),
    );
    y += 10;
  }
  if (absolutes.length > 0) {
    heading('Absolute figures, each on its own axis');
    for (const target of absolutes) bar(target, axis(reach(target) * 1.25));
  }
  const height = Math.ceil(y + 10);
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="${FONT}">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    ...parts,
    '</svg>',
    '',
  ].join('\n');
}

/** Draws the report's targets into `dir`/benchmarks.svg, once its figures are on disk. */
export function writeChart(report: Report, dir: string): void {
  writeFileSync(resolve(dir, 'benchmarks.svg'), chartSvg(report));
}
