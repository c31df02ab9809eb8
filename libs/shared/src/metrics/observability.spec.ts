import {
  EXTERNAL_METRICS,
  JOBS,
  TARGET_LABELS,
  alertRules,
  dashboard,
  dashboardPanels,
  exportedFamilies,
  exportedSamples,
  sampleValue,
  exportingFamily,
  headingAnchors,
  observabilityQueries,
  parsePromql,
  runbooksMarkdown,
  runbookTarget,
  type MetricType,
} from '@test/support/observability';
import type { PointInTimeLeases } from '@app/api/search/walks/point-in-time-leases';
import { PointInTimeMetrics } from '@app/api/search/walks/point-in-time-metrics';
import type { AppConfig } from '../config/config.schema';
import type { ErasureRepository } from '../erasure/erasure.repository';
import type { OutboxRepository } from '../events/outbox.repository';
import type { JobQueues } from '../queue/job-queues.service';
import type { TrashOperationRepository } from '../trash/trash-operation.repository';
import type { VideoRepository } from '../video/video.repository';
import { MetricsService } from './metrics.service';
import { StoredMetrics } from './stored-metrics';

/**
 * Every metric a process registers, with its type and labels: MetricsService's, StoredMetrics' and
 * the API's PointInTimeMetrics' (whose constructors only register; the stores are read later, so
 * none is needed here).
 */
function registeredMetrics(): Map<string, { type: MetricType; labels: string[] }> {
  const metrics = new MetricsService();
  const stored = new StoredMetrics(
    metrics,
    {} as JobQueues,
    {} as VideoRepository,
    {} as OutboxRepository,
    {} as ErasureRepository,
    {} as TrashOperationRepository,
    { METRICS_REFRESH_INTERVAL_MS: 15_000 } as AppConfig,
  );
  new PointInTimeMetrics(metrics, stored, {} as PointInTimeLeases, { SEARCH_PIT_MAX_OPEN: 400 } as AppConfig);
  const registered = new Map<string, { type: MetricType; labels: string[] }>();
  for (const metric of metrics.registry.getMetricsAsArray()) {
    const { name, labelNames } = metric as unknown as { name: string; labelNames: string[] };
    registered.set(name, { type: String(metric.type) as MetricType, labels: [...labelNames] });
  }
  return registered;
}

describe('the dashboard and the alerting rules (deploy/observability)', () => {
  const queries = observabilityQueries();
  const rules = alertRules();
  const registered = registeredMetrics();
  // Other exporters' metrics (the platform's alerts) are known by the labels they carry.
  for (const [name, { labels }] of Object.entries(EXTERNAL_METRICS))
    registered.set(name, { type: 'gauge', labels: [...labels] });
  const types = new Map([...registered].map(([name, { type }]) => [name, type]));

  it('has expressions to check: every rule and every panel', () => {
    expect(rules.length).toBeGreaterThanOrEqual(6);
    expect(queries.length).toBeGreaterThan(rules.length);
  });

  it.each(queries)(
    '$where is PromQL that parses without an error node, each selector naming its metric',
    (query) => {
      const parsed = parsePromql(query.expr);
      expect(parsed.errors).toEqual([]);
      expect(parsed.selectors.length).toBeGreaterThan(0);
      for (const selector of parsed.selectors) expect(selector.metric).toEqual(expect.any(String));
    },
  );

  it.each(queries)('$where names only metrics this service exports, and only their labels', (query) => {
    const { selectors, labels } = parsePromql(query.expr);
    const families = selectors.map((selector) => exportingFamily(selector.metric!, types));
    expect(selectors.filter((_, n) => families[n] === undefined).map((selector) => selector.metric)).toEqual(
      [],
    );
    const known = new Set([
      ...TARGET_LABELS,
      ...families.flatMap((family) => registered.get(family!)?.labels ?? []),
      // A histogram's buckets carry `le`.
      ...(selectors.some((selector) => selector.metric!.endsWith('_bucket')) ? ['le'] : []),
    ]);
    expect(labels.filter((label) => !known.has(label))).toEqual([]);
    selectors.forEach((selector, n) => {
      const own = new Set([...TARGET_LABELS, ...(registered.get(families[n]!)?.labels ?? [])]);
      expect(selector.matchers.map((matcher) => matcher.label).filter((label) => !own.has(label))).toEqual(
        [],
      );
    });
  });

  describe('every alerting rule', () => {
    const anchors = new Map<string, Set<string>>();
    const anchorsOf = (file: string) => {
      if (!anchors.has(file)) anchors.set(file, headingAnchors(runbooksMarkdown(file)));
      return anchors.get(file)!;
    };

    it('has a unique name', () => {
      const names = rules.map((rule) => rule.alert);
      expect(new Set(names).size).toBe(names.length);
    });

    it.each(rules)('$alert waits (`for`), has a severity, a summary, a description and a runbook', (rule) => {
      expect(rule.for).toMatch(/^\d+[smhd]$/);
      expect(['critical', 'warning']).toContain(rule.labels?.severity);
      expect(rule.annotations?.summary).toEqual(expect.stringMatching(/\S/));
      expect(rule.annotations?.description).toEqual(expect.stringMatching(/\S/));
      const runbook = runbookTarget(rule.annotations?.runbook_url ?? '');
      expect({
        runbook: rule.annotations?.runbook_url,
        found: runbook !== undefined && anchorsOf(runbook.file).has(runbook.anchor),
      }).toEqual({
        runbook: rule.annotations?.runbook_url,
        found: true,
      });
    });
  });

  describe('every alerting rule, scoped', () => {
    it.each(rules)(
      "$alert selects the application's metrics by its jobs and keeps `namespace` in every aggregation",
      (rule) => {
        const { selectors, aggregations } = parsePromql(rule.expr);
        for (const selector of selectors.filter((s) => !(s.metric! in EXTERNAL_METRICS))) {
          const job = selector.matchers.find((matcher) => matcher.label === 'job');
          const jobs = job?.op === '=' ? [job.value] : job?.op === '=~' ? job.value.split('|') : [];
          expect({
            metric: selector.metric,
            jobs: jobs.length > 0 && jobs.every((j) => JOBS.includes(j as never)),
          }).toEqual({
            metric: selector.metric,
            jobs: true,
          });
        }
        // Two deployments in two namespaces, scraped by one Prometheus, must not be added together.
        for (const aggregation of aggregations) {
          expect({ aggregation, namespace: aggregation.by?.includes('namespace') === true }).toEqual({
            aggregation,
            namespace: true,
          });
        }
      },
    );

    it('covers the platform: targets, the write path, Redis memory, KEDA and the autoscalers', () => {
      const names = rules.map((rule) => rule.alert);
      expect(names).toEqual(
        expect.arrayContaining([
          'TargetDown',
          'TargetAbsent',
          'DeleteErrorRate',
          'DeleteLatencyHigh',
          'RedisMemoryNearLimit',
          'WorkerScalerErrors',
          'AutoscalerAtMaximum',
        ]),
      );
      const write = rules.filter((rule) => rule.alert.startsWith('Delete'));
      for (const rule of write) {
        expect(
          parsePromql(rule.expr).selectors.every((s) =>
            s.matchers.some((m) => m.label === 'method' && m.value === 'DELETE'),
          ),
        ).toBe(true);
      }
    });
  });

  describe('the Grafana dashboard', () => {
    const board = dashboard();
    const panels = dashboardPanels(board);
    const DATASOURCE = { type: 'prometheus', uid: '${datasource}' };

    it('asks for its Prometheus data source in a variable, which every panel and query uses', () => {
      expect(board.templating.list).toContainEqual(
        expect.objectContaining({ name: 'datasource', type: 'datasource', query: 'prometheus' }),
      );
      for (const panel of panels) {
        expect({ panel: panel.title, datasource: panel.datasource }).toEqual({
          panel: panel.title,
          datasource: DATASOURCE,
        });
        for (const target of panel.targets ?? []) {
          expect({ panel: panel.title, datasource: target.datasource }).toEqual({
            panel: panel.title,
            datasource: DATASOURCE,
          });
        }
      }
    });

    it('asks for the namespace and the jobs in variables, and every query selects by both', () => {
      const names = board.templating.list.map((variable) => variable.name);
      expect(names).toEqual(expect.arrayContaining(['namespace', 'job']));
      for (const panel of panels) {
        for (const target of panel.targets ?? []) {
          for (const selector of parsePromql(target.expr).selectors) {
            expect({
              panel: panel.title,
              matchers: selector.matchers.filter((m) => m.label === 'namespace' || m.label === 'job'),
            }).toEqual({
              panel: panel.title,
              matchers: [
                { label: 'namespace', op: '=~', value: '$namespace' },
                { label: 'job', op: '=~', value: '$job' },
              ],
            });
          }
        }
      }
    });

    it('gives every panel a query, a unique id and a place within the 24 columns', () => {
      const ids = board.panels.flatMap((panel) => [panel, ...(panel.panels ?? [])]).map((panel) => panel.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(
        panels.filter((panel) => (panel.targets ?? []).length === 0).map((panel) => panel.title),
      ).toEqual([]);
      expect(
        panels.filter((panel) => panel.gridPos.x + panel.gridPos.w > 24).map((panel) => panel.title),
      ).toEqual([]);
    });

    it('shows search, queues, purges, erasures and webhook deliveries', () => {
      const shown = new Set(
        panels
          .flatMap((panel) => (panel.targets ?? []).flatMap((target) => parsePromql(target.expr).selectors))
          .map((selector) => selector.metric),
      );
      for (const metric of [
        'http_request_duration_seconds_count',
        'http_request_duration_seconds_bucket',
        'queue_jobs',
        'queue_oldest_waiting_seconds',
        'purges_due',
        'purge_lag_seconds',
        'deletions_failing',
        'bulk_operations_unfinished',
        'bulk_operation_idle_seconds',
        'webhook_deliveries_undelivered',
        'metrics_refreshed_timestamp_seconds',
      ]) {
        expect(shown).toContain(metric);
      }
    });
  });

  describe('the PromQL checks themselves', () => {
    it('find an error node in a broken expression', () => {
      expect(parsePromql('sum(rate(queue_jobs[5m])').errors).not.toEqual([]);
      expect(parsePromql('rate(queue_jobs[$window])').errors).not.toEqual([]);
    });

    it('read names however a selector spells them, and the labels of every clause', () => {
      const parsed = parsePromql(
        'sum by (queue) (rate(job_failures_total{name="x"}[$__rate_interval])) / on (queue) {"queue_jobs", state=~"w.*"} + {__name__="purges_due"}',
      );
      expect(parsed.errors).toEqual([]);
      expect(parsed.selectors).toEqual([
        { metric: 'job_failures_total', matchers: [{ label: 'name', op: '=', value: 'x' }] },
        { metric: 'queue_jobs', matchers: [{ label: 'state', op: '=~', value: 'w.*' }] },
        { metric: 'purges_due', matchers: [] },
      ]);
      expect(parsed.labels).toEqual(expect.arrayContaining(['queue', 'name', 'state']));
    });

    it('take a histogram’s series by their suffixes, never by its bare name', () => {
      const exported = new Map<string, MetricType>([
        ['http_request_duration_seconds', 'histogram'],
        ['job_failures_total', 'counter'],
      ]);
      expect(exportingFamily('http_request_duration_seconds_bucket', exported)).toBe(
        'http_request_duration_seconds',
      );
      expect(exportingFamily('http_request_duration_seconds_count', exported)).toBe(
        'http_request_duration_seconds',
      );
      expect(exportingFamily('http_request_duration_seconds', exported)).toBeUndefined();
      expect(exportingFamily('job_failures_total', exported)).toBe('job_failures_total');
      expect(exportingFamily('job_failures', exported)).toBeUndefined();
    });

    it('read the families and samples of what prom-client exports', async () => {
      const metrics = new MetricsService();
      metrics.httpDuration.observe({ method: 'GET', route: '/api/videos/search', status: '200' }, 0.02);
      metrics.webhookAttempts.inc({ outcome: 'a "quoted" \\ outcome' });
      const exposition = await metrics.registry.metrics();
      const families = exportedFamilies(exposition);
      expect(families.get('http_request_duration_seconds')).toBe('histogram');
      expect(families.get('job_failures_total')).toBe('counter');
      expect(exportedSamples(exposition)).toEqual(
        expect.arrayContaining([
          {
            name: 'http_request_duration_seconds_count',
            labels: { method: 'GET', route: '/api/videos/search', status: '200' },
            value: 1,
          },
          { name: 'webhook_delivery_attempts_total', labels: { outcome: 'a "quoted" \\ outcome' }, value: 1 },
        ]),
      );
      expect(
        sampleValue(exposition, 'http_request_duration_seconds_sum', { route: '/api/videos/search' }),
      ).toBe(0.02);
      expect(
        sampleValue(exposition, 'http_request_duration_seconds_count', { route: '/nowhere' }),
      ).toBeUndefined();
    });

    it('know the anchors GitHub gives headings', () => {
      expect([
        ...headingAnchors(
          '# Observability\n```\n# not a heading\n```\n### PurgeLate\n## Rows, panels & more\n## Rows, panels & more',
        ),
      ]).toEqual(['observability', 'purgelate', 'rows-panels--more', 'rows-panels--more-1']);
    });
  });
});
