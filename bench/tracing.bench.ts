import { countAs, type MeasuredRun } from './lib/cpu';
import { benchToken, startApi, startOtlpSink, type BenchContext, type StartedService } from './lib/kit';
import { alternatingLoads, warmUp, type HttpLoad, type WarmUp } from './lib/load';
import { queryMix } from './lib/queries';

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
  /** Through an API that records 5 % of the traces (`SAMPLED`), as docs/tracing.md advises for production. */
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
export type TracingSide = 'off' | 'on' | 'sampled' | 'before';
type SearchLoad = Omit<HttpLoad, 'durationSeconds' | 'amount'>;

/** The ratio of the `sampled` side's sampler. */
export const SAMPLED_RATIO = 0.05;

/** Each side's API: its environment beyond the bench's. */
const sideEnv = (collector: string): Record<Exclude<TracingSide, 'before'>, Record<string, string>> => ({
  off: {},
  on: { OTEL_EXPORTER_OTLP_ENDPOINT: collector },
  sampled: {
    OTEL_EXPORTER_OTLP_ENDPOINT: collector,
    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
    OTEL_TRACES_SAMPLER_ARG: String(SAMPLED_RATIO),
  },
});

/**
 * The APIs, up for the rounds and stopped after them, the traced ones exporting to `collector`:
 * their shutdown exports the spans they still hold, so the collector's count is read after it.
 */
async function measureSides(
  collector: string,
  search: (url: string) => SearchLoad,
  {
    seconds,
    rounds,
    warmUpSeconds,
    baseline,
  }: {
    seconds: number;
    rounds: number;
    warmUpSeconds: { min: number; max: number };
    baseline?: string;
  },
): Promise<Pick<TracingBench, TracingSide | 'warmUp'>> {
  const started: StartedService[] = [];
  try {
    const loads = {} as Record<TracingSide, SearchLoad>;
    // Each side's API: its environment, and the checkout it is built from (this one by default).
    const sides = Object.entries(sideEnv(collector)) as [TracingSide, Record<string, string>, string?][];
    if (baseline) sides.push(['before', {}, baseline]);
    for (const [side, env, checkout] of sides) {
      const api = await startApi(env, checkout);
      started.push(api);
      countAs(api.process.child.pid!, `api-${side}`);
      loads[side] = search(api.url);
    }
    const warmed = await warmUp(loads, {
      roundSeconds: Math.min(10, warmUpSeconds.min / 2),
      minSeconds: warmUpSeconds.min,
      maxSeconds: warmUpSeconds.max,
      settledJitShare: 0.01,
    });
    return { ...(await alternatingLoads(loads, { rounds, seconds: seconds / rounds })), warmUp: warmed };
  } finally {
    await Promise.all(started.map((api) => api.process.stop()));
  }
}

/**
 * What tracing costs a search (docs/tracing.md): three APIs side by side, one without
 * OTEL_EXPORTER_OTLP_ENDPOINT, one exporting every span over OTLP/HTTP (protobuf, the default;
 * every trace recorded, the default) and one recording 5 % of the traces, both to a collector
 * that drops them (bench/otlp-sink.ts), under the same closed-loop search load in alternating
 * rounds after a warm-up. Each API's CPU is counted apart (`api-off`, `api-on`, `api-sampled`). The API without tracing needs
 * no baseline of its own: it loads no line of the SDK (test/e2e/tracing.test.ts proves it), so it
 * is the API every other step measures.
 */
export async function benchTracing(
  context: BenchContext,
  options: {
    concurrency: number;
    seconds: number;
    rounds: number;
    warmUpSeconds: { min: number; max: number };
    /** A built checkout from before tracing existed, measured as a fourth side. */
    baseline?: string;
  },
): Promise<TracingBench> {
  const queries = await queryMix(context.dataSource);
  const search = (url: string): SearchLoad => ({
    url,
    headers: { authorization: `Bearer ${benchToken()}` },
    request: (i: number) => ({
      path: `/api/videos/search?q=${encodeURIComponent(queries[i % queries.length]!)}&limit=20`,
    }),
    concurrency: options.concurrency,
  });
  const sink = await startOtlpSink();
  let sides: Pick<TracingBench, TracingSide | 'warmUp'>;
  let exported: TracingBench['exported'];
  try {
    sides = await measureSides(sink.url, search, options);
  } finally {
    exported = await sink.stop();
  }
  const { concurrency, seconds, rounds } = options;
  return { queries: queries.length, concurrency, seconds, rounds, ...sides, exported };
}
