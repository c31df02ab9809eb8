/**
 * What the Prometheus Operator reads: a PodMonitor per process (which pods, which port, which job
 * name) and a PrometheusRule holding deploy/observability/alerts.yaml, with each runbook's address
 * made absolute. The operator's CRDs have no model installed here (`@kubernetes-models/prometheus-
 * operator` would be one), so these classes check the fields this renders against the CRDs'
 * required shape themselves.
 */
import type { IObjectMeta } from '@kubernetes-models/apimachinery/apis/meta/v1/ObjectMeta';
import { Model } from '@kubernetes-models/base';
import { parse } from 'yaml';
import { APP, labels, NAMES, selectorLabels } from './names.ts';
import type { Overlay } from './overlays.ts';
import { METRICS_PATH } from './processes.ts';
import type { Release } from './release.ts';

const MONITORING_API = 'monitoring.coreos.com/v1';

/** Prometheus' duration syntax (`30s`, `1h30m`), as the CRDs' patterns accept it. */
const DURATION =
  /^(?=.)(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$/;
/** A DNS-1123 subdomain: what metadata.name must be. */
const NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export interface IPodMonitor {
  apiVersion: typeof MONITORING_API;
  kind: 'PodMonitor';
  metadata: IObjectMeta;
  spec: {
    selector: { matchLabels: Record<string, string> };
    podMetricsEndpoints: {
      port: string;
      path: string;
      interval: string;
      scrapeTimeout: string;
      relabelings: { action: 'replace'; targetLabel: string; replacement: string }[];
    }[];
  };
}

export interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface RuleGroup {
  name: string;
  rules: AlertRule[];
}

export interface IPrometheusRule {
  apiVersion: typeof MONITORING_API;
  kind: 'PrometheusRule';
  metadata: IObjectMeta;
  spec: { groups: RuleGroup[] };
}

function check(problems: string[], ok: boolean, path: string, message: string): void {
  if (!ok) problems.push(`${path} ${message}`);
}

function checkMeta(problems: string[], metadata: IObjectMeta | undefined): void {
  check(problems, NAME.test(metadata?.name ?? ''), 'metadata.name', 'must be a DNS-1123 name');
}

/**
 * A model of one of the operator's kinds: built, guarded (`is`) and validated like kubernetes-models'
 * own, the validation throwing every problem found, each a path and what is wrong.
 */
function monitoringModel<T extends { apiVersion: string; kind: string }>(
  kind: T['kind'],
  problemsOf: (value: T) => string[],
) {
  return class extends Model<T> {
    static readonly apiVersion = MONITORING_API;
    static readonly kind = kind;
    static readonly is = (value: unknown): value is T => {
      const object = value as Partial<T> | undefined;
      return object?.apiVersion === MONITORING_API && object.kind === kind;
    };
    constructor(data: Omit<T, 'apiVersion' | 'kind'>) {
      super();
      this.setDefinedProps({ apiVersion: MONITORING_API, kind, ...data } as never);
    }
    override validate(): void {
      const problems = problemsOf(this.toJSON() as T);
      if (problems.length > 0) throw new Error(problems.join('; '));
    }
  };
}

function podMonitorProblems(value: IPodMonitor): string[] {
  const problems: string[] = [];
  checkMeta(problems, value.metadata);
  const matchLabels = value.spec?.selector?.matchLabels ?? {};
  check(problems, Object.keys(matchLabels).length > 0, 'spec.selector.matchLabels', 'must select some pods');
  const endpoints = value.spec?.podMetricsEndpoints ?? [];
  check(problems, endpoints.length > 0, 'spec.podMetricsEndpoints', 'must not be empty');
  endpoints.forEach((endpoint, n) => {
    const at = `spec.podMetricsEndpoints[${n}]`;
    check(problems, /^[a-z0-9-]{1,15}$/.test(endpoint.port), `${at}.port`, 'must be a port name');
    check(problems, endpoint.path.startsWith('/'), `${at}.path`, 'must be an absolute path');
    for (const field of ['interval', 'scrapeTimeout'] as const)
      check(problems, DURATION.test(endpoint[field]), `${at}.${field}`, 'must be a duration');
  });
  return problems;
}

function prometheusRuleProblems(value: IPrometheusRule): string[] {
  const problems: string[] = [];
  checkMeta(problems, value.metadata);
  const groups = value.spec?.groups ?? [];
  check(problems, groups.length > 0, 'spec.groups', 'must not be empty');
  check(
    problems,
    new Set(groups.map((g) => g.name)).size === groups.length,
    'spec.groups',
    'names must be unique',
  );
  groups.forEach((group, g) => {
    check(problems, group.rules.length > 0, `spec.groups[${g}].rules`, 'must not be empty');
    group.rules.forEach((rule, r) => {
      const at = `spec.groups[${g}].rules[${r}]`;
      check(problems, /^[A-Za-z_][A-Za-z0-9_]*$/.test(rule.alert), `${at}.alert`, 'must be a name');
      check(problems, typeof rule.expr === 'string' && rule.expr.trim() !== '', `${at}.expr`, 'must be set');
      check(problems, rule.for === undefined || DURATION.test(rule.for), `${at}.for`, 'must be a duration');
      for (const [field, map] of [
        ['labels', rule.labels],
        ['annotations', rule.annotations],
      ] as const) {
        const values = Object.values(map ?? {});
        check(
          problems,
          values.every((v) => typeof v === 'string'),
          `${at}.${field}`,
          'must be strings',
        );
      }
    });
  });
  return problems;
}

export const PodMonitor = monitoringModel<IPodMonitor>('PodMonitor', podMonitorProblems);
export type PodMonitor = InstanceType<typeof PodMonitor>;
export const PrometheusRule = monitoringModel<IPrometheusRule>('PrometheusRule', prometheusRuleProblems);
export type PrometheusRule = InstanceType<typeof PrometheusRule>;

/** How often Prometheus scrapes each process; the stored metrics change every 15 s at most. */
export const SCRAPE_SECONDS = 30;
const SCRAPE = { interval: `${SCRAPE_SECONDS}s`, scrapeTimeout: '10s' };

/**
 * One process's pods, scraped on their `metrics` port. `job` is the Deployment's name, the job the
 * alerting rules and the dashboard select (deploy/README.md); `namespace` comes with every target.
 */
export function podMonitor(overlay: Overlay, component: 'api' | 'worker', version: string): PodMonitor {
  return new PodMonitor({
    metadata: {
      name: NAMES[component],
      labels: { ...labels(component, version), ...overlay.monitoringLabels },
    },
    spec: {
      selector: { matchLabels: selectorLabels(component) },
      podMetricsEndpoints: [
        {
          port: 'metrics',
          path: METRICS_PATH,
          ...SCRAPE,
          relabelings: [{ action: 'replace', targetLabel: 'job', replacement: NAMES[component] }],
        },
      ],
    },
  });
}

/** The alerting rules of alerts.yaml (its text). */
export function alertGroups(alertsYaml: string): RuleGroup[] {
  return (parse(alertsYaml) as { groups: RuleGroup[] }).groups;
}

/** alerts.yaml as a PrometheusRule, each runbook path prefixed with the release's base URL. */
export function prometheusRule(
  overlay: Overlay,
  groups: RuleGroup[],
  release: Release,
  version: string,
): PrometheusRule {
  return new PrometheusRule({
    metadata: {
      name: APP,
      labels: {
        'app.kubernetes.io/name': APP,
        'app.kubernetes.io/version': version,
        ...overlay.monitoringLabels,
      },
    },
    spec: {
      groups: groups.map((group) => ({
        ...group,
        rules: group.rules.map((rule) => ({
          ...rule,
          annotations: {
            ...rule.annotations,
            ...(rule.annotations?.runbook_url
              ? { runbook_url: new URL(rule.annotations.runbook_url, release.runbookBaseUrl).href }
              : {}),
          },
        })),
      })),
    },
  });
}
