import { chartSvg, escapeXml, goalBound } from './chart';
import type { Report, Target } from './report';

const target = (name: string, value: number, goal: string, met: boolean): Target => ({
  name,
  value,
  goal,
  met,
});

const report = (targets: Target[]): Pick<Report, 'targets' | 'date' | 'mode'> => ({
  date: '2026-11-21T16:14:23.380Z',
  mode: 'full',
  targets,
});

const TARGETS = [
  target('search p50, API / Elasticsearch', 1.17, '≤ 1.2', true),
  target('search throughput, API / Elasticsearch', 0.88, '≥ 0.8', true),
  target('purge rate, worker / raw script', 0.62, '≥ 0.7', false),
  target('reindex rate, service / raw bulk', 0.93, '≥ 0.8', true),
  target('peak RSS MB, worker and CLI at 1021713 videos', 329.99, '< 512', true),
];

/**
 * Well-formedness without an XML library: one root, every element closed in order, attributes
 * quoted, and no bare `<` or `&` in text or attribute values.
 */
function checkWellFormed(xml: string): void {
  const body = xml.replace(/^<\?xml[^?]*\?>\s*/, '');
  const stack: string[] = [];
  let roots = 0;
  const token = /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>|([^<]+)|(<)/g;
  for (const match of body.matchAll(token)) {
    const [, closing, name, attributes, selfClosing, text, stray] = match;
    if (stray) throw new Error(`stray < at ${match.index}`);
    const content = text ?? attributes ?? '';
    if (/&(?!(amp|lt|gt|quot|apos|#\d+);)/.test(content)) throw new Error(`bare & near ${match.index}`);
    if (text !== undefined) {
      if (stack.length === 0 && text.trim() !== '') throw new Error('text outside the root element');
      continue;
    }
    if (closing) {
      if (stack.pop() !== name) throw new Error(`</${name}> closes another element`);
    } else if (!selfClosing) {
      if (stack.length === 0) roots++;
      stack.push(name!);
    } else if (stack.length === 0) roots++;
  }
  if (stack.length > 0) throw new Error(`unclosed <${stack.join('>, <')}>`);
  if (roots !== 1) throw new Error(`${roots} root elements`);
}

const count = (xml: string, pattern: RegExp) => xml.match(pattern)?.length ?? 0;

describe('chartSvg', () => {
  it('is checked by a checker that tells malformed XML', () => {
    for (const bad of ['<svg><g></svg>', '<svg>a & b</svg>', '<svg>a < b</svg>', '<a/><b/>', '<svg x=1/>']) {
      expect(() => checkWellFormed(bad)).toThrow();
    }
  });

  it('is well-formed SVG', () => {
    const svg = chartSvg(report(TARGETS));
    expect(() => checkWellFormed(svg)).not.toThrow();
    expect(svg).toMatch(/<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="\d+" height="\d+"/);
  });

  it('draws one bar and one goal tick per target, coloured by whether it was met', () => {
    const svg = chartSvg(report(TARGETS));
    expect(count(svg, /<rect class="bar"/g)).toBe(TARGETS.length);
    expect(count(svg, /<line class="goal"/g)).toBe(TARGETS.length);
    expect(count(svg, /class="bar"[^>]*fill="#c62828"/g)).toBe(1);
    for (const t of TARGETS) expect(svg).toContain(`>${t.value.toFixed(2)} (goal ${escapeXml(t.goal)})<`);
  });

  it('puts the ratios on one axis, where a ratio of 1 sits on the baseline line', () => {
    const svg = chartSvg(report(TARGETS.slice(0, 2)));
    const baseline = /<line class="baseline" x1="([\d.]+)"/.exec(svg);
    const bar = /<rect class="bar" x="([\d.]+)" y="[\d.]+" width="([\d.]+)"/.exec(svg);
    const parity = chartSvg(report([target('p50, API / Elasticsearch', 1, '≤ 1.2', true), TARGETS[1]!]));
    const parityBar = /<rect class="bar" x="([\d.]+)" y="[\d.]+" width="([\d.]+)"/.exec(parity);
    expect(baseline).not.toBeNull();
    expect(Number(parityBar![1]) + Number(parityBar![2])).toBeCloseTo(Number(baseline![1]), 0);
    // 1.17 reaches past the baseline.
    expect(Number(bar![1]) + Number(bar![2])).toBeGreaterThan(Number(baseline![1]));
  });

  it('widens the chart for long names rather than squeeze the bars', () => {
    const width = (svg: string) => Number(/<svg [^>]*width="(\d+)"/.exec(svg)![1]);
    const barWidth = (svg: string) =>
      Number(/<rect class="bar" x="[\d.]+" y="[\d.]+" width="([\d.]+)"/.exec(svg)![1]);
    const short = chartSvg(report([target('p50, API / plain', 1, '≤ 1.2', true)]));
    const long = chartSvg(
      report([
        target('search p50 at 1,021,713 videos, fresh, the longest name yet: API / plain', 1, '≤ 1.2', true),
      ]),
    );
    expect(width(short)).toBe(960);
    expect(width(long)).toBeGreaterThan(960);
    // A ratio of 1 on an axis to 1.6 × 1.05, over at least 480 px of plot.
    expect(barWidth(long)).toBeGreaterThanOrEqual(480 / (1.6 * 1.05) - 0.1);
    expect(barWidth(short)).toBeGreaterThan(barWidth(long));
  });

  it('escapes names and goals, so that any text stays XML', () => {
    const hostile = target(`a <b> & "c" 'd' / e]]>`, 0.5, '< 1 & > 0', false);
    const svg = chartSvg(report([hostile]));
    expect(() => checkWellFormed(svg)).not.toThrow();
    expect(svg).toContain('a &lt;b&gt; &amp; &quot;c&quot; &apos;d&apos; / e]]&gt;');
    expect(svg).not.toContain('<b>');
  });

  it('draws no goal tick for a goal without a number, and no bar backwards for a negative value', () => {
    const svg = chartSvg(report([target('odd, a / b', -0.2, 'n/a', false)]));
    expect(() => checkWellFormed(svg)).not.toThrow();
    expect(count(svg, /<line class="goal"/g)).toBe(0);
    expect(svg).toMatch(/<rect class="bar" x="[\d.]+" y="[\d.]+" width="0"/);
  });

  it('draws a chart with nothing to show without failing', () => {
    expect(() => checkWellFormed(chartSvg(report([])))).not.toThrow();
  });
});

describe('goalBound', () => {
  it.each([
    ['≤ 1.2', 1.2],
    ['≥ 0.8', 0.8],
    ['< 512', 512],
    ['n/a', undefined],
  ])('%s → %p', (goal, bound) => {
    expect(goalBound(goal)).toBe(bound);
  });
});

describe('escapeXml', () => {
  it('escapes the five XML specials and nothing else', () => {
    expect(escapeXml(`<&>"' ≤ é`)).toBe('&lt;&amp;&gt;&quot;&apos; ≤ é');
  });
});
