import { randomUUID } from 'node:crypto';
import {
  EXTERNAL_METRICS,
  exportedFamilies,
  exportedSamples,
  exportingFamily,
  observabilityQueries,
  parsePromql,
  TARGET_LABELS,
  type MetricType,
} from '../support/observability';
import { bootSystem } from '../support/boot';
import { waitFor } from '../support/processes';
import { call, token } from '../support/system';

/** How long the processes get to export everything: their first read of the stores comes at start. */
const EXPORTED_WITHIN_MS = 60_000;

async function scrape(base: string): Promise<string> {
  const response = await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(5_000) });
  if (response.status !== 200) throw new Error(`${base}/metrics answered ${response.status}`);
  return response.text();
}

/**
 * The Grafana dashboard and the alerting rules (deploy/observability, docs/observability.md) name
 * only what the running processes export: every metric by at least one of the API (on
 * METRICS_PORT) and the worker (on WORKER_PORT), and every label value a selector asks for by `=`
 * among the samples of a series that has any. A metric without samples yet still prints its HELP
 * and TYPE, which is what names it.
 */
describe('the dashboard’s and the alerting rules’ metrics, on the running API and worker', () => {
  const boot = bootSystem();

  it(
    'exports every metric they name, and the series they select by label value',
    async () => {
      // A search, so that the search route has its series (the rules and panels select it by route).
      const search = await call(
        'GET',
        `${boot.system.api}/api/videos/search?q=observability`,
        token('operator'),
      );
      expect(search.status).toBe(200);
      // A deletion of a video that does not exist, so that DELETE has its series (the write path's rules).
      const deletion = await call(
        'DELETE',
        `${boot.system.api}/api/videos/${randomUUID()}`,
        token('operator'),
      );
      expect(deletion.status).toBe(404);

      // Other exporters' metrics are not the processes' to export, and the labels of a target are
      // Prometheus' to add: neither is in a process's exposition.
      const targetLabels = new Set<string>(TARGET_LABELS);
      const selectors = observabilityQueries()
        .flatMap((query) => parsePromql(query.expr).selectors)
        .filter((selector) => !(selector.metric! in EXTERNAL_METRICS))
        .map((selector) => ({
          ...selector,
          matchers: selector.matchers.filter((matcher) => !targetLabels.has(matcher.label)),
        }));
      const names = [...new Set(selectors.map((selector) => selector.metric!))];
      expect(names.length).toBeGreaterThan(10);

      const exported = await waitFor(
        'every metric of the dashboard and the rules exported',
        async () => {
          const expositions = await Promise.all(
            [boot.system.apiMetrics, boot.system.workerHealth].map(scrape),
          );
          const families = new Map<string, MetricType>();
          for (const exposition of expositions) {
            for (const [family, type] of exportedFamilies(exposition)) families.set(family, type);
          }
          const samples = expositions.flatMap(exportedSamples);
          const missing = names.filter((name) => exportingFamily(name, families) === undefined);
          const unmatched = selectors
            .filter((selector) => samples.some((sample) => sample.name === selector.metric))
            .filter(
              (selector) =>
                !samples.some(
                  (sample) =>
                    sample.name === selector.metric &&
                    selector.matchers.every(
                      (matcher) => matcher.op !== '=' || sample.labels[matcher.label] === matcher.value,
                    ),
                ),
            )
            .map(
              (selector) =>
                `${selector.metric}{${selector.matchers.map((m) => `${m.label}${m.op}"${m.value}"`).join(',')}}`,
            );
          // Thrown, not returned: past the deadline waitFor's error names what was still missing.
          if (missing.length > 0 || unmatched.length > 0) {
            throw new Error(
              `not exported: ${JSON.stringify({ missing, unmatched: [...new Set(unmatched)] })}`,
            );
          }
          return families;
        },
        { timeoutMs: EXPORTED_WITHIN_MS, intervalMs: 1_000 },
      );
      expect(names.filter((name) => exportingFamily(name, exported) === undefined)).toEqual([]);
    },
    EXPORTED_WITHIN_MS + 30_000,
  );
});
