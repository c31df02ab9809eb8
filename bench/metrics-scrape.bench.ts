import type { MeasuredRun } from './lib/cpu';
import { apiSearchHeader, apiSearchRow, atMost, row } from './lib/figures';
import { lastJsonLine, PATHS, startApi, startProcess } from './lib/kit';
import { alternatingLoads, apiSearches, timedHttpLoad, type Alongside } from './lib/load';
import { queryMix } from './lib/queries';
import type { Step } from './lib/step';
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
        const { latencies, errors } = lastJsonLine<{ latencies: number[]; errors: number }>(running.output());
        into.latencies.push(...latencies);
        into.errors += errors;
      },
    };
  };
}

/** 16 connections; 100 scrapes a second, several Prometheus servers' worth; rounds even, so that `roundOrder` balances them. */
const settings = (quick: boolean) => ({
  concurrency: 16,
  seconds: quick ? 8 : 48,
  rounds: quick ? 2 : 6,
  scrapesPerSecond: 100,
});

/**
 * What scraping the API costs its searches (docs/contract.md §9): a closed-loop search load in
 * alternating rounds without and with 100 scrapes a second of the metrics port, from a process of
 * their own. A scrape only serialises the registry (the values read from MySQL and Redis are
 * refreshed on an interval), so the searches' p99 should barely move.
 */
export const metricsScrapeStep: Step<{ metricsScrape: MetricsScrapeBench }> = {
  name: 'metrics-scrape',
  measures: 'search through the API while its METRICS_PORT is scraped 100 times a second (bench/scraper.ts)',
  baseline: 'the same searches through the same API, not scraped',
  data: 'index',
  async run({ context, quick }) {
    const { concurrency, seconds, rounds, scrapesPerSecond } = settings(quick);
    const queries = await queryMix(context.dataSource);
    const api = await startApi();
    try {
      const search = apiSearches(api.url, queries, concurrency);
      // V8 optimises the API and Elasticsearch caches the queries before anything is measured.
      await timedHttpLoad({ ...search, durationSeconds: quick ? 8 : 24 });
      const scrapes = { latencies: [] as number[], errors: 0 };
      const scraping = scraper(api.metrics, scrapesPerSecond, scrapes);
      const measured = await alternatingLoads(
        { quiet: search, scraped: search },
        {
          rounds,
          seconds: seconds / rounds,
          alongside: (side) => (side === 'scraped' ? scraping : undefined),
        },
      );
      return {
        metricsScrape: {
          scrapesPerSecond,
          ...measured,
          scrapes: summarize(scrapes.latencies, measured.scraped.seconds, scrapes.errors),
        },
      };
    } finally {
      await api.process.stop();
    }
  },
  report({ metricsScrape: scrape }, { quick }) {
    const { concurrency, seconds, rounds } = settings(quick);
    return {
      tables: [
        {
          title:
            `Search while the API's metrics port is scraped (${concurrency} connections, ${seconds} s each in ` +
            `${rounds} alternating rounds, a b b a…; ${scrape.scrapesPerSecond} scrapes a second on METRICS_PORT ` +
            `during the scraped rounds)`,
          header: apiSearchHeader,
          rows: [
            apiSearchRow('search, metrics not scraped', scrape.quiet),
            apiSearchRow('search, metrics scraped', scrape.scraped),
            [...row('the scrapes (GET /metrics on METRICS_PORT)', scrape.scrapes), ''],
          ],
        },
      ],
      targets: [
        atMost(
          `search p99, metrics scraped ${scrape.scrapesPerSecond}/s / not scraped`,
          scrape.scraped.p99 / scrape.quiet.p99,
          1.05,
        ),
      ],
    };
  },
};
