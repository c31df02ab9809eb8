import { countAs, type MeasuredRun } from './lib/cpu';
import { count, cpuMsPer, cpuPer, loadHeader, megabytes, ms, rate, row } from './lib/figures';
import { startApi, startOtlpSink, type StartedService } from './lib/kit';
import { alternatingLoads, apiSearches, warmUp, type SideLoad, type WarmUp } from './lib/load';
import { queryMix } from './lib/queries';
import type { Step } from './lib/step';

export interface TracingBench {
  queries: number;
  concurrency: number;
  /** Measured seconds per side, over all its rounds. */
  seconds: number;
  rounds: number;
  /** Searches through an API without OTEL_EXPORTER_OTLP_ENDPOINT: no SDK loaded. */
  off: MeasuredRun;
  /** The same searches through an API that traces every one (the default sampler) to a local collector. */
  on: MeasuredRun;
  /** Through an API that records 5 % of the traces (`SAMPLED_RATIO`), as docs/tracing.md advises for production. */
  sampled: MeasuredRun;
  /**
   * With a baseline build (`BENCH_TRACING_BASELINE`, a checkout from before tracing existed, built):
   * its API beside the others, so that "off" is measured against an API with no tracing code at all.
   */
  before?: MeasuredRun;
  /** What the traced APIs exported over the whole step (warm-up included): OTLP requests and bytes. */
  exported: { requests: number; bytes: number };
  warmUp: WarmUp;
}

/** The APIs the step measures, by what their tracing is. */
type TracingSide = 'off' | 'on' | 'sampled' | 'before';

/** The ratio of the `sampled` side's sampler. */
const SAMPLED_RATIO = 0.05;

/**
 * What tracing costs a search (docs/tracing.md): APIs side by side under the same search load, in
 * alternating rounds after a warm-up, each one's CPU counted apart (`api-off`, `api-on`…). The API
 * without tracing loads no line of the SDK (test/e2e/tracing.test.ts), so it is the API every other
 * step measures and needs no baseline of its own. The APIs are stopped before the collector's count
 * is read: their shutdown exports the spans they still hold.
 */
export const tracingStep: Step<{ tracing: TracingBench }> = {
  name: 'tracing',
  measures:
    'search through an API exporting its spans over OTLP (every trace, and 5 % of them) to a collector that drops them',
  baseline:
    'the same searches through an API with tracing off (no SDK loaded); BENCH_TRACING_BASELINE adds an older build',
  data: 'index',
  async run({ context, search: { concurrency, seconds, rounds, warmUp: warmUpLimits } }) {
    const queries = await queryMix(context.dataSource);
    const baseline = process.env.BENCH_TRACING_BASELINE;
    const sink = await startOtlpSink();
    const started: StartedService[] = [];
    let measured: Record<TracingSide, MeasuredRun> & { warmUp: WarmUp };
    let exported: TracingBench['exported'];
    try {
      const traced = { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url };
      // Each side's API: its environment beyond the bench's, and the checkout it is built from.
      const sides: [TracingSide, Record<string, string>, string?][] = [
        ['off', {}],
        ['on', traced],
        [
          'sampled',
          {
            ...traced,
            OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
            OTEL_TRACES_SAMPLER_ARG: String(SAMPLED_RATIO),
          },
        ],
        ...(baseline ? [['before', {}, baseline] as [TracingSide, Record<string, string>, string]] : []),
      ];
      const loads = {} as Record<TracingSide, SideLoad>;
      for (const [side, env, checkout] of sides) {
        const api = await startApi(env, checkout);
        started.push(api);
        countAs(api.process.child.pid!, `api-${side}`);
        loads[side] = apiSearches(api.url, queries, concurrency);
      }
      const warmed = await warmUp(loads, warmUpLimits);
      measured = {
        ...(await alternatingLoads(loads, { rounds, seconds: seconds / rounds })),
        warmUp: warmed,
      };
    } finally {
      await Promise.all(started.map((api) => api.process.stop()));
      exported = await sink.stop();
    }
    return { tracing: { queries: queries.length, concurrency, seconds, rounds, ...measured, exported } };
  },
  report({ tracing }) {
    const { off, on, sampled, exported } = tracing;
    const sampledShare = `${(SAMPLED_RATIO * 100).toFixed(0)} %`;
    const parts = ['elasticsearch', 'mysql', 'redis'];
    const measures: [string, (run: MeasuredRun, part: string) => number, (v: number) => string][] = [
      ['req/s', (run) => run.perSecond, rate],
      ['p50 ms', (run) => run.p50, ms],
      ['p99 ms', (run) => run.p99, ms],
      ['API CPU ms per search', (run, part) => cpuMsPer(run.cpu, run.requests, part), (v) => v.toFixed(2)],
    ];
    /** A row per measure: its value on each side, then each side after the first against the first. */
    const compared = (sides: TracingSide[]) =>
      measures.map(([measure, value, shown]) => {
        const values = sides.map((side) => value(tracing[side]!, `api-${side}`));
        return [measure, ...values.map(shown), ...values.slice(1).map((v) => (v / values[0]!).toFixed(2))];
      });
    return {
      tables: [
        {
          title:
            `Search with tracing off and on (${tracing.concurrency} connections, ${tracing.seconds} s each in ` +
            `${tracing.rounds} alternating rounds, a b c c b a…, after a warm-up of ${tracing.warmUp.seconds.toFixed(0)} s ` +
            `that ended with Elasticsearch's JIT compiler at ${(tracing.warmUp.jitShare * 100).toFixed(1)} % of its CPU; ` +
            `spans exported over OTLP/HTTP protobuf to a local collector that drops them, ` +
            `${count(exported.requests)} exports of ${megabytes(exported.bytes)} MB over the step)`,
          header: loadHeader('CPU ms per search: API / ES (of it JIT compiler) / MySQL / Redis / collector'),
          rows: [
            [
              ...row('API, OTEL_EXPORTER_OTLP_ENDPOINT unset (no SDK loaded)', off),
              `${cpuPer(off.cpu, off.requests, ['api-off', ...parts])} / –`,
            ],
            [
              ...row('API, tracing on, every trace recorded (the default sampler)', on),
              cpuPer(on.cpu, on.requests, ['api-on', ...parts, 'sink']),
            ],
            [
              ...row(`API, tracing on, ${sampledShare} recorded (parentbased_traceidratio)`, sampled),
              cpuPer(sampled.cpu, sampled.requests, ['api-sampled', ...parts, 'sink']),
            ],
          ],
        },
        {
          title: `Search with tracing on against off, as ratios`,
          header: ['measure', 'off', 'on', `on, ${sampledShare}`, 'on / off', `on, ${sampledShare} / off`],
          rows: compared(['off', 'on', 'sampled']),
        },
        // Off against no tracing code at all: the cost of what stays in the code when it is off.
        ...(tracing.before
          ? [
              {
                title: `Search with tracing off against an API built before tracing existed (${process.env.BENCH_TRACING_BASELINE})`,
                header: ['measure', 'before tracing', 'off', 'off / before'],
                rows: compared(['before', 'off']),
              },
            ]
          : []),
      ],
      targets: [],
    };
  },
};
