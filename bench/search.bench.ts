import { createPool } from 'mysql2/promise';
import { buildSearchRequest } from '@app/shared/search/search-query.builder';
import type { AppConfig } from '@app/shared/config/config.schema';
import { benchToken, type BenchContext } from './lib/kit';
import type { CpuSeconds } from './lib/cpu';
import { alternatingLoads, warmUp, type WarmUp } from './lib/load';
import { queryMix } from './lib/queries';
import { closedLoop, type RunStats } from './lib/stats';

export interface SearchBench {
  api: RunStats & { cpu: CpuSeconds };
  elasticsearch: RunStats & { cpu: CpuSeconds };
  mysqlFulltext: RunStats;
  warmUp: WarmUp;
}

/**
 * The same query mix at the same concurrency: through the API (auth, validation, Elasticsearch,
 * the MySQL check of every page), straight to Elasticsearch with the very body the API sends, and
 * against MySQL FULLTEXT, the baseline a small team would otherwise pick.
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
    seconds: number;
    rounds: number;
    /** At least, then until Elasticsearch's JIT has settled, at most. */
    warmUpSeconds: { min: number; max: number };
  },
): Promise<SearchBench> {
  const queries = await queryMix(context.dataSource);
  const token = benchToken();
  const criteria = (i: number) => ({ q: queries[i % queries.length]!, page: 1, limit: 20 });

  const api = {
    url: apiUrl,
    headers: { authorization: `Bearer ${token}` },
    request: (i: number) => ({ path: `/api/videos/search?q=${encodeURIComponent(criteria(i).q)}&limit=20` }),
    concurrency,
  };
  const elasticsearch = {
    url: config.ELASTICSEARCH_URL,
    method: 'POST' as const,
    headers: { 'content-type': 'application/json' },
    request: (i: number) => {
      const { index, ...body } = buildSearchRequest(criteria(i), config.ELASTICSEARCH_INDEX);
      return { path: `/${String(index)}/_search`, body: JSON.stringify(body) };
    },
    concurrency,
  };
  // Warm-up (JIT, connection pools, index caches), then the two alternate. The API's CPU per
  // request keeps falling for about 20 s of load while V8 optimises it; a fresh Elasticsearch
  // node compiles for minutes (docs/benchmarking.md).
  const warmed = await warmUp(
    { api, elasticsearch },
    {
      roundSeconds: Math.min(10, warmUpSeconds.min / 2),
      minSeconds: warmUpSeconds.min,
      maxSeconds: warmUpSeconds.max,
      settledJitShare: 0.01,
    },
  );
  const measured = await alternatingLoads({ api, elasticsearch }, { rounds, seconds: seconds / rounds });

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
    const mysqlFulltext = await closedLoop(
      async (i) => {
        const q = criteria(i).q;
        await pool.query(sql, [q, q]);
      },
      { concurrency, durationMs: (seconds / 2) * 1000 },
    );
    return { ...measured, mysqlFulltext, warmUp: warmed };
  } finally {
    await pool.end();
    await context.dataSource.query('DROP TABLE IF EXISTS bench_fulltext');
  }
}
