import type { estypes } from '@elastic/elasticsearch';
import type { AppConfig } from '@app/shared/config/config.schema';
import { VideoState } from '@app/shared/video/video-state';
import { indexState, type IndexState } from './lib/bench-data';
import { startChurn, videosNeeded, type ChurnFigures, type ChurnRate, type Stretch } from './lib/churn';
import type { MeasuredRun } from './lib/cpu';
import {
  buildSearchRequests,
  PATHS,
  startSearchFloors,
  typoSuggestions,
  benchToken,
  type BenchContext,
} from './lib/kit';
import {
  alternatingLoads,
  apiSearches,
  floorSearches,
  throughApi,
  warmUp,
  type Alongside,
  type SideLoad,
  type WarmUp,
} from './lib/load';
import { PAGE, plainBody } from './lib/plain-query';
import { asTyped, sampleQueryMix } from './lib/queries';
import type { SearchLoad } from './lib/step';

/** Soft deletes a second while a live index is searched, and as many restores, each a second later. */
const CHURN: ChurnRate = { perSecond: 20, lagMs: 1000 };

/** The sample's query mix, read once however many comparisons a run makes (two per catalogue size). */
let sampleMix: Promise<string[]> | undefined;
export const sampleQueries = (): Promise<string[]> => (sampleMix ??= sampleQueryMix(PATHS.sample));

type Side = 'api' | 'plain' | 'elasticsearch' | 'floor' | 'framework' | 'suggest';

export interface SearchBench {
  /** Active videos in the index searched, before any churn. */
  videos: number;
  /** Queries in the mix. */
  queries: number;
  concurrency: number;
  /** Measured seconds per side, in how many alternating rounds. */
  seconds: number;
  rounds: number;
  /** The index when the measured rounds began, and when they ended (merges go on under churn). */
  index: { before: IndexState; after: IndexState };
  api: MeasuredRun;
  /** The plain `multi_match` a user would write instead, straight to Elasticsearch. */
  plain: MeasuredRun;
  /** The API's own request body, straight to Elasticsearch: what the API adds to its query. */
  elasticsearch: MeasuredRun;
  /** The plain query through a bare forwarding proxy (bench/floor-proxy.ts): the least an HTTP hop costs. */
  floor: MeasuredRun;
  /** The same hop through the API's frameworks (bench/floor-framework.ts): the least an API on them costs. */
  framework: MeasuredRun;
  /** `GET /api/videos/suggest` with the same queries cut as if still being typed (quiet runs only). */
  suggest?: MeasuredRun;
  /** The churn beside the searches: each side's rounds, and the whole run (warm-up included). */
  churn?: { rate: ChurnRate; sides: Partial<Record<Side, ChurnFigures>>; total: ChurnFigures };
  warmUp: WarmUp;
}

/**
 * The requests the API sends for a first page of `q`, as one `_msearch`: its ranking (with the
 * suggester, as for words new to it) and its count. The only call of the product's query builder
 * in the benches: its signature may change, and this is the one line to follow it.
 */
function apiBody(q: string, index: string): { path: string; body: string } {
  const { rank, count } = buildSearchRequests(
    { q, sort: 'relevance' },
    { kind: 'window', from: 0, size: PAGE + 1 },
    index,
  );
  const search = ({ index: target, request_cache, ...body }: estypes.SearchRequest) => [
    JSON.stringify({ index: target, ...(request_cache === undefined ? {} : { request_cache }) }),
    JSON.stringify(body),
  ];
  return {
    path: '/_msearch',
    body: [...search({ ...rank, suggest: typoSuggestions(q) }), ...search(count), ''].join('\n'),
  };
}

/**
 * The videos the churn deletes and restores: random active ones in a fixed order (a seeded
 * RAND), 2,000 of them, so that each comes round every 100 s, long after its restore.
 */
async function churnVideos(context: BenchContext): Promise<string[]> {
  const rows: { id: string }[] = await context.dataSource.query(
    'SELECT id FROM videos WHERE state = ? ORDER BY RAND(31) LIMIT ?',
    [VideoState.Active, Math.max(2_000, videosNeeded(CHURN))],
  );
  return rows.map((row) => row.id);
}

/**
 * One search comparison on the index as it is: the sample's known-item queries (short texts whose
 * engine cost is low, so that the API's own cost shows) through the API, as a plain `multi_match`
 * and as the API's own body straight to Elasticsearch, and through the two floors, in alternating
 * rounds after a warm-up (docs/performance.md, "The comparison"). With `churn`, soft deletes and
 * restores run through the API from before the warm-up to after the last round, reported apart;
 * without it, the API's suggestions for the same queries cut as typed are one more side.
 */
export async function benchSearch(
  config: AppConfig,
  context: BenchContext,
  apiUrl: string,
  { concurrency, seconds, rounds, warmUp: warmUpLimits }: SearchLoad,
  {
    churn: withChurn = false,
    profileApi,
  }: {
    churn?: boolean;
    /** Runs beside each of the API's measured rounds (a profiler of its process). */
    profileApi?: Alongside;
  } = {},
): Promise<SearchBench> {
  const queries = await sampleQueries();
  const q = (i: number) => queries[i % queries.length]!;
  const index = config.ELASTICSEARCH_INDEX;
  const engine = (body: (i: number) => { path: string; body: string }): SideLoad => ({
    url: config.ELASTICSEARCH_URL,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    request: body,
    concurrency,
  });
  const videos = await context.videos.count();
  const churnIds = withChurn ? await churnVideos(context) : [];
  // After the reads that may fail: the floors are stopped by the `finally` below, and only there.
  const floors = await startSearchFloors(['bare', 'nest'], config.ELASTICSEARCH_URL, index);
  // Only the sides present are run (`alternatingLoads` goes by the object's keys).
  const loads = {
    api: apiSearches(apiUrl, queries, concurrency),
    plain: engine((i) => ({ path: `/${index}/_search`, body: JSON.stringify(plainBody(q(i))) })),
    elasticsearch: engine((i) => apiBody(q(i), index)),
    floor: floorSearches(floors.url.bare, queries, concurrency),
    framework: floorSearches(floors.url.nest, queries, concurrency),
    ...(withChurn
      ? {}
      : {
          suggest: throughApi(
            apiUrl,
            (i) => `/api/videos/suggest?q=${encodeURIComponent(asTyped(q(i)))}`,
            concurrency,
          ),
        }),
  } as Record<Side, SideLoad>;
  const churn = withChurn ? startChurn(apiUrl, benchToken(), churnIds, CHURN) : undefined;
  const stretches: Partial<Record<Side, Stretch[]>> = {};
  /** Beside a side's measured rounds: the marks of the churn's stretch (if any), and for the API its profiler. */
  const beside =
    (side: Side): Alongside =>
    () => {
      const from = churn?.mark();
      const profiling = side === 'api' ? profileApi?.() : undefined;
      return {
        async stop() {
          if (churn) (stretches[side] ??= []).push([from!, churn.mark()]);
          await profiling?.stop();
        },
      };
    };
  try {
    // Warm-up (JIT, connection pools, index caches), then the sides alternate. The API's CPU per
    // request keeps falling while V8 optimises it, and a fresh Elasticsearch node compiles for
    // minutes (docs/performance.md, "How a comparison is kept fair").
    const warmed = await warmUp(loads, warmUpLimits);
    const before = await indexState(context);
    const measured = await alternatingLoads(loads, { rounds, seconds: seconds / rounds, alongside: beside });
    const after = await indexState(context);
    const total = await churn?.stop();
    return {
      videos,
      queries: queries.length,
      concurrency,
      seconds,
      rounds,
      index: { before, after },
      ...measured,
      ...(churn && total
        ? {
            churn: {
              rate: CHURN,
              sides: Object.fromEntries(
                Object.entries(stretches).map(([side, of]) => [side, churn.figures(of)]),
              ),
              total,
            },
          }
        : {}),
      warmUp: warmed,
    };
  } finally {
    // Also after an error: no video stays deleted.
    await churn?.stop();
    await floors.stop();
  }
}
