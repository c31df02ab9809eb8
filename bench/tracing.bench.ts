import { countAs, type MeasuredRun } from './lib/cpu';
import { benchToken, startApi, startOtlpSink, type BenchContext } from './lib/kit';
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
  /** What the traced API exported over the whole step (warm-up included): OTLP requests and bytes. */
  exported: { requests: number; bytes: number };
  warmUp: WarmUp;
}

type SearchLoad = Omit<HttpLoad, 'durationSeconds' | 'amount'>;

/**
 * The two APIs, up for the rounds and stopped after them, the traced one exporting to `collector`:
 * its shutdown exports the spans it still holds, so the collector's count is read after it.
 */
async function measureSides(
  collector: string,
  search: (url: string) => SearchLoad,
  {
    seconds,
    rounds,
    warmUpSeconds,
  }: { seconds: number; rounds: number; warmUpSeconds: { min: number; max: number } },
): Promise<Pick<TracingBench, 'off' | 'on' | 'warmUp'>> {
  const off = await startApi();
  try {
    const on = await startApi({ OTEL_EXPORTER_OTLP_ENDPOINT: collector });
    try {
      countAs(off.process.child.pid!, 'api-off');
      countAs(on.process.child.pid!, 'api-on');
      const loads = { off: search(off.url), on: search(on.url) };
      const warmed = await warmUp(loads, {
        roundSeconds: Math.min(10, warmUpSeconds.min / 2),
        minSeconds: warmUpSeconds.min,
        maxSeconds: warmUpSeconds.max,
        settledJitShare: 0.01,
      });
      return { ...(await alternatingLoads(loads, { rounds, seconds: seconds / rounds })), warmUp: warmed };
    } finally {
      await on.process.stop();
    }
  } finally {
    await off.process.stop();
  }
}

/**
 * What tracing costs a search (docs/tracing.md): two APIs side by side, one without
 * OTEL_EXPORTER_OTLP_ENDPOINT and one exporting every span over OTLP/HTTP (protobuf, the
 * default; every trace sampled, the default) to a collector that drops them
 * (bench/otlp-sink.ts), under the same closed-loop search load in alternating rounds after a
 * warm-up. Each API's CPU is counted apart (`api-off`, `api-on`). The API without tracing needs
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
  let sides: Pick<TracingBench, 'off' | 'on' | 'warmUp'>;
  let exported: TracingBench['exported'];
  try {
    sides = await measureSides(sink.url, search, options);
  } finally {
    exported = await sink.stop();
  }
  const { concurrency, seconds, rounds } = options;
  return { queries: queries.length, concurrency, seconds, rounds, ...sides, exported };
}
