import { createPool } from 'mysql2/promise';
import { buildSearchRequest } from '@app/shared/search/search-query.builder';
import type { AppConfig } from '@app/shared/config/config.schema';
import type { CliContext } from '../apps/worker/src/cli/cli-context';
import { benchToken } from './lib/bench-env';
import { httpLoad } from './lib/load';
import { queryMix } from './lib/queries';
import { closedLoop, type RunStats } from './lib/stats';

export interface SearchBench {
  api: RunStats;
  elasticsearch: RunStats;
  mysqlFulltext: RunStats;
}

/**
 * The same query mix at the same concurrency: through the API (auth, validation, Elasticsearch,
 * the MySQL check of every page), straight to Elasticsearch with the very body the API sends, and
 * against MySQL FULLTEXT, the baseline a small team would otherwise pick.
 */
export async function benchSearch(
  config: AppConfig,
  context: CliContext,
  apiUrl: string,
  { concurrency, seconds }: { concurrency: number; seconds: number },
): Promise<SearchBench> {
  const queries = await queryMix(context.dataSource);
  const token = benchToken();
  const criteria = (i: number) => ({ q: queries[i % queries.length]!, page: 1, limit: 20 });

  const apiLoad = (durationSeconds: number) =>
    httpLoad({
      url: apiUrl,
      headers: { authorization: `Bearer ${token}` },
      request: (i) => ({ path: `/api/videos/search?q=${encodeURIComponent(criteria(i).q)}&limit=20` }),
      concurrency,
      durationSeconds,
    });
  await apiLoad(2); // warm-up: JIT, connection pools, index caches
  const api = await apiLoad(seconds);

  const elasticsearch = await httpLoad({
    url: config.ELASTICSEARCH_URL,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    request: (i) => {
      const { index, ...body } = buildSearchRequest(criteria(i), config.ELASTICSEARCH_INDEX);
      return { path: `/${String(index)}/_search`, body: JSON.stringify(body) };
    },
    concurrency,
    durationSeconds: seconds,
  });

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
      { concurrency, durationMs: seconds * 1000 },
    );
    return { api, elasticsearch, mysqlFulltext };
  } finally {
    await pool.end();
    await context.dataSource.query('DROP TABLE IF EXISTS bench_fulltext');
  }
}
