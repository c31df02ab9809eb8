import { createPool } from 'mysql2/promise';
import type { estypes } from '@elastic/elasticsearch';
import type { AppConfig } from '@app/shared/config/config.schema';
import { VideoState } from '@app/shared/video/video-state';
import type { CpuSeconds } from './lib/cpu';
import { benchToken, buildSearchRequests, typoSuggestions, type BenchContext } from './lib/kit';
import { alternatingLoads, warmUp, type HttpLoad, type WarmUp } from './lib/load';
import { asTyped, queryMix } from './lib/queries';
import { closedLoop, type RunStats } from './lib/stats';

const PAGE = 20;
/**
 * MySQL FULLTEXT is measured up to this many videos only: at 71,713 it built its index in about
 * 20 s and answered in 2.3 s at the median, 4 a second; at a million it would take minutes to
 * build for a handful of answers, beside baselines that answer hundreds.
 */
const FULLTEXT_MAX_VIDEOS = 100_000;

export interface SearchBench {
  /** Active videos in the index searched. */
  videos: number;
  /** Distinct queries in the mix. */
  queries: number;
  api: RunStats & { cpu: CpuSeconds };
  /** The plain `multi_match` a user would write instead, straight to Elasticsearch. */
  plain: RunStats & { cpu: CpuSeconds };
  /** The API's own request body, straight to Elasticsearch: what the API adds to its query. */
  elasticsearch: RunStats & { cpu: CpuSeconds };
  /** `GET /api/videos/suggest` with the same queries cut as if still being typed. */
  suggest: RunStats & { cpu: CpuSeconds };
  mysqlFulltext?: RunStats;
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
 * The baseline a user would pick instead of this API: one `multi_match` over the title (weighted
 * three times) and the description, active videos only, and the engine's defaults for the rest
 * (hits with their `_source`, the total counted up to 10,000). Deliberately plain.
 */
export function plainBody(q: string): estypes.SearchRequest {
  return {
    query: {
      bool: {
        must: { multi_match: { query: q, fields: ['title^3', 'description'] } },
        filter: { term: { state: VideoState.Active } },
      },
    },
    size: PAGE,
  };
}

/**
 * The same query mix at the same concurrency, in one run, on the index as it is: through the API
 * (auth, validation, Elasticsearch, the MySQL check of every page); a plain `multi_match` straight
 * to Elasticsearch, the baseline a user would pick; the very body the API sends, straight to
 * Elasticsearch, so that what the API's query costs and what the API around it costs show apart;
 * the API's title suggestions for the same queries cut short, which a search box asks for as it is
 * typed; and, after them and on small catalogues only, MySQL FULLTEXT, what a small team would build
 * without a search engine.
 */
export async function benchSearch(
  config: AppConfig,
  context: BenchContext,
  apiUrl: string,
  {
    concurrency,
    seconds,
    rounds,
    warmUpSeconds,
  }: {
    concurrency: number;
    /** Measured seconds per side, over all rounds. */
    seconds: number;
    rounds: number;
    /** At least, then until Elasticsearch's JIT has settled, at most. */
    warmUpSeconds: { min: number; max: number };
  },
): Promise<SearchBench> {
  const queries = await queryMix(context.dataSource);
  const q = (i: number) => queries[i % queries.length]!;
  const index = config.ELASTICSEARCH_INDEX;
  const engine = (
    body: (i: number) => { path: string; body: string },
  ): Omit<HttpLoad, 'durationSeconds'> => ({
    url: config.ELASTICSEARCH_URL,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    request: body,
    concurrency,
  });
  const loads = {
    api: {
      url: apiUrl,
      headers: { authorization: `Bearer ${benchToken()}` },
      request: (i: number) => ({ path: `/api/videos/search?q=${encodeURIComponent(q(i))}&limit=${PAGE}` }),
      concurrency,
    },
    plain: engine((i) => ({ path: `/${index}/_search`, body: JSON.stringify(plainBody(q(i))) })),
    elasticsearch: engine((i) => apiBody(q(i), index)),
    suggest: {
      url: apiUrl,
      headers: { authorization: `Bearer ${benchToken()}` },
      request: (i: number) => ({ path: `/api/videos/suggest?q=${encodeURIComponent(asTyped(q(i)))}` }),
      concurrency,
    },
  };
  // Warm-up (JIT, connection pools, index caches), then the sides alternate. The API's CPU per
  // request keeps falling for about 20 s of load while V8 optimises it; a fresh Elasticsearch
  // node compiles for minutes (docs/benchmarking.md).
  const warmed = await warmUp(loads, {
    roundSeconds: Math.min(10, warmUpSeconds.min / 2),
    minSeconds: warmUpSeconds.min,
    maxSeconds: warmUpSeconds.max,
    settledJitShare: 0.01,
  });
  const measured = await alternatingLoads(loads, { rounds, seconds: seconds / rounds });
  const videos = await context.videos.count();
  const result = { videos, queries: queries.length, ...measured, warmUp: warmed };
  if (videos > FULLTEXT_MAX_VIDEOS) return result;
  return { ...result, mysqlFulltext: await mysqlFulltext(config, context, q, { concurrency, seconds }) };
}

/** MySQL FULLTEXT natural-language search of the same queries, on a copy of the active rows. */
async function mysqlFulltext(
  config: AppConfig,
  context: BenchContext,
  q: (i: number) => string,
  { concurrency, seconds }: { concurrency: number; seconds: number },
): Promise<RunStats> {
  await context.dataSource.query('DROP TABLE IF EXISTS bench_fulltext');
  await context.dataSource.query(
    "CREATE TABLE bench_fulltext ENGINE=InnoDB AS SELECT id, title, description, published_at FROM videos WHERE state = 'active'",
  );
  await context.dataSource.query('ALTER TABLE bench_fulltext ADD FULLTEXT INDEX ft (title, description)');
  const pool = createPool({ uri: config.DATABASE_URL, connectionLimit: concurrency });
  try {
    const sql =
      'SELECT id, MATCH(title, description) AGAINST (? IN NATURAL LANGUAGE MODE) AS score FROM bench_fulltext ' +
      'WHERE MATCH(title, description) AGAINST (? IN NATURAL LANGUAGE MODE) ORDER BY score DESC, published_at DESC, id LIMIT 20';
    return await closedLoop(
      async (i) => {
        await pool.query(sql, [q(i), q(i)]);
      },
      { concurrency, durationMs: (seconds / 2) * 1000 },
    );
  } finally {
    await pool.end();
    await context.dataSource.query('DROP TABLE IF EXISTS bench_fulltext');
  }
}
