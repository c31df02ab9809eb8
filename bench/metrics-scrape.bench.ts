import type { MeasuredRun } from './lib/cpu';
import { benchToken, PATHS, startProcess, type BenchContext } from './lib/kit';
import { alternatingLoads, httpLoad, type Alongside } from './lib/load';
import { queryMix } from './lib/queries';
import { summarize, type RunStats } from './lib/stats';

export interface MetricsScrapeBench {
  /** Scrapes sent per second on the API's metrics port while `scraped` ran. */
  scrapesPerSecond: number;
  /** Searches through the API, nothing scraping it. */
  quiet: MeasuredRun;
  /** The same searches while METRICS_PORT is scraped `scrapesPerSecond` times a second. */
  scraped: MeasuredRun;
  /** The scrapes themselves, over every `scraped` round. */
  scrapes: RunStats;
}

/** The scraper process (bench/scraper.ts) through each round it runs alongside; its figures land in `into`. */
function scraper(
  metricsUrl: string,
  perSecond: number,
  into: { latencies: number[]; errors: number },
): Alongside {
  return () => {
    const running = startProcess(PATHS.scraper, {}, [metricsUrl, String(perSecond)]);
    return {
      async stop() {
        await running.stop();
        const line = running.output().trim().split('\n').pop()!;
        const { latencies, errors } = JSON.parse(line) as { latencies: number[]; errors: number };
        into.latencies.push(...latencies);
        into.errors += errors;
      },
    };
  };
}

/**
 * What scraping the API costs its searches (docs/contract.md §9): the same closed-loop search
 * load as the search step, in alternating rounds without and with `scrapesPerSecond` scrapes of
 * the metrics port from a process of their own. A scrape only serialises the registry (the values
 * read from MySQL and Redis are refreshed on an interval), so the searches' p99 should barely move.
 */
export async function benchMetricsScrape(
  context: BenchContext,
  api: { url: string; metrics: string },
  {
    concurrency,
    seconds,
    rounds,
    warmUpSeconds,
    scrapesPerSecond,
  }: {
    concurrency: number;
    /** Measured seconds per side, over all rounds. */
    seconds: number;
    rounds: number;
    warmUpSeconds: number;
    scrapesPerSecond: number;
  },
): Promise<MetricsScrapeBench> {
  const queries = await queryMix(context.dataSource);
  const search = {
    url: api.url,
    headers: { authorization: `Bearer ${benchToken()}` },
    request: (i: number) => ({
      path: `/api/videos/search?q=${encodeURIComponent(queries[i % queries.length]!)}&limit=20`,
    }),
    concurrency,
  };
  // V8 optimises the API and Elasticsearch caches the queries before anything is measured.
  await httpLoad({ ...search, durationSeconds: warmUpSeconds });
  const scrapes = { latencies: [] as number[], errors: 0 };
  const measured = await alternatingLoads(
    { quiet: search, scraped: search },
    {
      rounds,
      seconds: seconds / rounds,
      alongside: { scraped: scraper(api.metrics, scrapesPerSecond, scrapes) },
    },
  );
  return {
    scrapesPerSecond,
    ...measured,
    scrapes: summarize(scrapes.latencies, measured.scraped.seconds, scrapes.errors),
  };
}
