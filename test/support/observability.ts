import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parser } from '@prometheus-io/lezer-promql';
import { parse as parseYaml } from 'yaml';
import type { AlertRule } from '../../deploy/kubernetes/monitoring.ts';
import { ROOT } from './processes';

type SyntaxNode = ReturnType<typeof parser.parse>['topNode'];

/**
 * The operators' files (docs/observability.md): the Grafana dashboard, the alerting rules, and the
 * application's runbooks (the platform's are in deploy/runbooks, `runbookTarget`).
 */
export const OBSERVABILITY_FILES = {
  dashboard: 'deploy/observability/grafana-dashboard.json',
  alerts: 'deploy/observability/alerts.yaml',
  runbooks: 'docs/observability.md',
} as const;

const read = (path: string) => readFileSync(resolve(ROOT, path), 'utf8');

export type { AlertRule };

/** Every alerting rule of alerts.yaml, in order. */
export function alertRules(): AlertRule[] {
  const file = parseYaml(read(OBSERVABILITY_FILES.alerts)) as { groups: { rules: AlertRule[] }[] };
  return file.groups.flatMap((group) => group.rules);
}

export interface DashboardTarget {
  refId: string;
  expr: string;
  datasource?: { type?: string; uid?: string };
}

export interface DashboardPanel {
  id: number;
  type: string;
  title: string;
  gridPos: { h: number; w: number; x: number; y: number };
  datasource?: { type?: string; uid?: string };
  targets?: DashboardTarget[];
  /** A collapsed row keeps its panels here. */
  panels?: DashboardPanel[];
}

export interface Dashboard {
  title: string;
  uid: string;
  templating: { list: { name: string; type: string; query?: string }[] };
  panels: DashboardPanel[];
}

export function dashboard(): Dashboard {
  return JSON.parse(read(OBSERVABILITY_FILES.dashboard)) as Dashboard;
}

/** Every panel of the dashboard, those inside collapsed rows included, rows left out. */
export function dashboardPanels(board = dashboard()): DashboardPanel[] {
  return board.panels
    .flatMap((panel) => [panel, ...(panel.panels ?? [])])
    .filter((panel) => panel.type !== 'row');
}

/**
 * Labels Prometheus gives every scraped series, whatever the process exports: its target's (`job`,
 * `instance`) and, discovered on Kubernetes by a PodMonitor, its `namespace`.
 */
export const TARGET_LABELS = ['instance', 'job', 'namespace'] as const;

/** The application's scrape jobs (the PodMonitors' job names), which the alerting rules select. */
export const JOBS = ['video-search-api', 'video-search-worker'] as const;

/**
 * The metrics of other exporters the platform's alerts read (deploy/runbooks/platform.md), with the
 * labels each carries: Prometheus' own, the Redis exporter's, KEDA's and kube-state-metrics'.
 */
export const EXTERNAL_METRICS: Record<string, { source: string; labels: readonly string[] }> = {
  up: { source: 'Prometheus', labels: TARGET_LABELS },
  redis_memory_used_bytes: { source: 'redis_exporter', labels: TARGET_LABELS },
  redis_memory_max_bytes: { source: 'redis_exporter', labels: TARGET_LABELS },
  keda_scaled_object_errors_total: { source: 'KEDA operator', labels: ['namespace', 'scaledObject'] },
  kube_horizontalpodautoscaler_status_current_replicas: {
    source: 'kube-state-metrics',
    labels: ['namespace', 'horizontalpodautoscaler'],
  },
  kube_horizontalpodautoscaler_spec_max_replicas: {
    source: 'kube-state-metrics',
    labels: ['namespace', 'horizontalpodautoscaler'],
  },
};

/** A PromQL expression of the rules or the dashboard, and where it is, for messages. */
export interface Query {
  where: string;
  expr: string;
}

/** Every expression the alerting rules and the dashboard's panels evaluate. */
export function observabilityQueries(): Query[] {
  return [
    ...alertRules().map((rule) => ({ where: `alert ${rule.alert}`, expr: rule.expr })),
    ...dashboardPanels().flatMap((panel) =>
      (panel.targets ?? []).map((target) => ({
        where: `panel "${panel.title}" (${target.refId})`,
        expr: target.expr,
      })),
    ),
  ];
}

/**
 * Grafana's interval variables, which the dashboard's range selectors use and Grafana replaces
 * before Prometheus sees the query; any other `$` is not PromQL and fails the parse.
 */
const GRAFANA_INTERVALS = /\$__(rate_interval|interval|range)\b/g;

export interface LabelMatcher {
  label: string;
  op: string;
  value: string;
}

/** A series selector: the metric it names (undefined when it names none) and its label matchers. */
export interface Selector {
  metric: string | undefined;
  matchers: LabelMatcher[];
}

/** An aggregation (`sum by (queue) (…)`): its operator and the labels it keeps (`by`) or drops (`without`). */
export interface Aggregation {
  op: string;
  by?: string[];
  without?: string[];
}

export interface ParsedQuery {
  /** Where the grammar failed (its error nodes, `⚠`), as offsets and the text from there. */
  errors: string[];
  selectors: Selector[];
  aggregations: Aggregation[];
  /** Every label the expression names: in matchers, `by`/`without`, `on`/`ignoring`, `group_left`/`group_right`. */
  labels: string[];
}

/** A PromQL string literal's value: double quotes are JSON's escapes, single quotes and backticks are taken as written. */
function literal(text: string): string {
  return text.startsWith('"') ? (JSON.parse(text) as string) : text.slice(1, -1);
}

function children(node: SyntaxNode): SyntaxNode[] {
  const found: SyntaxNode[] = [];
  for (let child = node.firstChild; child; child = child.nextSibling) found.push(child);
  return found;
}

/**
 * Parses an expression with the Prometheus project's own grammar (`@prometheus-io/lezer-promql`,
 * the one its web UI uses) and collects its selectors and labels from the tree.
 */
export function parsePromql(expr: string): ParsedQuery {
  const source = expr.replace(GRAFANA_INTERVALS, '5m');
  const text = (node: SyntaxNode) => source.slice(node.from, node.to);
  const errors: string[] = [];
  const selectors: Selector[] = [];
  const aggregations: Aggregation[] = [];
  const labels: string[] = [];
  const matcherOf = (node: SyntaxNode): LabelMatcher => {
    const parts = children(node);
    const name = parts.find((part) => part.name === 'LabelName' || part.name === 'QuotedLabelName')!;
    const value = parts.find((part) => part.name === 'StringLiteral');
    return {
      label: name.name === 'QuotedLabelName' ? literal(text(name)) : text(name),
      op: text(parts.find((part) => part.name === 'MatchOp')!),
      value: value ? literal(text(value)) : '',
    };
  };
  parser.parse(source).iterate({
    enter(ref) {
      if (ref.type.isError)
        errors.push(`at ${ref.from}: ${JSON.stringify(source.slice(ref.from, ref.from + 30))}`);
      if (ref.name === 'LabelName') labels.push(text(ref.node));
      if (ref.name === 'AggregateExpr') aggregations.push(aggregationOf(ref.node, text));
      if (ref.name !== 'VectorSelector') return;
      const parts = children(ref.node);
      const matchers = parts
        .filter((part) => part.name === 'LabelMatchers')
        .flatMap(children)
        .filter((part) => part.name.endsWith('LabelMatcher'))
        .map(matcherOf);
      // The name as an identifier (`up{…}`), quoted inside the braces (`{"up", …}`) or as `__name__="up"`.
      const identifier = parts.find((part) => part.name === 'Identifier');
      const quoted = parts
        .filter((part) => part.name === 'LabelMatchers')
        .flatMap(children)
        .find((part) => part.name === 'QuotedLabelName');
      const byName = matchers.find((matcher) => matcher.label === '__name__' && matcher.op === '=');
      selectors.push({
        metric: identifier ? text(identifier) : quoted ? literal(text(quoted)) : byName?.value,
        matchers: matchers.filter((matcher) => matcher.label !== '__name__'),
      });
    },
  });
  return { errors, selectors, aggregations, labels };
}

function aggregationOf(node: SyntaxNode, text: (node: SyntaxNode) => string): Aggregation {
  const parts = children(node);
  const modifier = parts.find((part) => part.name === 'AggregateModifier');
  const aggregation: Aggregation = { op: text(parts.find((part) => part.name === 'AggregateOp')!) };
  if (!modifier) return aggregation;
  const [kind, grouping] = children(modifier);
  const names = grouping ? children(grouping).map(text) : [];
  return { ...aggregation, [kind!.name === 'By' ? 'by' : 'without']: names };
}

/** Prometheus' metric types, as the text format's `# TYPE` lines name them. */
export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

/**
 * The series a name selects, as `family` and the types under which it exists: a histogram's series
 * are its `_bucket`, `_sum` and `_count` (the bare name selects nothing), a summary's `_sum` and
 * `_count` (and the bare name, its quantiles).
 */
export function seriesFamilies(name: string): { family: string; types: MetricType[] }[] {
  const candidates: { family: string; types: MetricType[] }[] = [
    { family: name, types: ['counter', 'gauge', 'untyped', 'summary'] },
  ];
  const suffix = /_(bucket|sum|count)$/.exec(name);
  if (suffix) {
    candidates.push({
      family: name.slice(0, suffix.index),
      types: suffix[1] === 'bucket' ? ['histogram'] : ['histogram', 'summary'],
    });
  }
  return candidates;
}

/** The family that exports the series `name`, from what a process exports (family → type), or undefined. */
export function exportingFamily(name: string, exported: ReadonlyMap<string, MetricType>): string | undefined {
  return seriesFamilies(name).find(({ family, types }) => {
    const type = exported.get(family);
    return type !== undefined && types.includes(type);
  })?.family;
}

/** The anchors GitHub gives the headings of a Markdown file (lower case, punctuation dropped, spaces as hyphens). */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = !fenced && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = heading[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    let anchor = base;
    for (let n = 1; anchors.has(anchor); n += 1) anchor = `${base}-${n}`;
    anchors.add(anchor);
  }
  return anchors;
}

export function runbooksMarkdown(path: string = OBSERVABILITY_FILES.runbooks): string {
  return read(path);
}

/**
 * A runbook_url's file and anchor: a Markdown file of the application's runbooks or of
 * deploy/runbooks, and a heading in it; undefined for anything else.
 */
export function runbookTarget(url: string): { file: string; anchor: string } | undefined {
  const match = /^(docs\/observability\.md|deploy\/runbooks\/[a-z0-9-]+\.md)#(.+)$/.exec(url);
  return match ? { file: match[1]!, anchor: match[2]! } : undefined;
}

/** The metric families in a Prometheus text exposition, with their types (from the `# TYPE` lines). */
export function exportedFamilies(exposition: string): Map<string, MetricType> {
  const families = new Map<string, MetricType>();
  for (const line of exposition.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) families.set(type[1]!, type[2] as MetricType);
  }
  return families;
}

/** The samples of a text exposition: each series' name, labels and value. */
export function exportedSamples(
  exposition: string,
): { name: string; labels: Record<string, string>; value: number }[] {
  return exposition
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const sample = /^([^{\s]+)(?:\{(.*)\})?\s+(\S+)/.exec(line)!;
      const labels: Record<string, string> = {};
      for (const pair of (sample[2] ?? '').matchAll(/([^=,\s]+)="((?:[^"\\]|\\.)*)"/g)) {
        labels[pair[1]!] = JSON.parse(`"${pair[2]!}"`) as string;
      }
      return { name: sample[1]!, labels, value: Number(sample[3]) };
    });
}

/** The value of the first series named `name` that carries every label given, if one is exported. */
export function sampleValue(
  exposition: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  return exportedSamples(exposition).find(
    (sample) =>
      sample.name === name &&
      Object.entries(labels).every(([label, value]) => sample.labels[label] === value),
  )?.value;
}
