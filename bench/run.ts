/**
 * `npm run bench` (and `npm run bench -- --quick`, under 10 minutes): every hot path against its
 * baseline in the same run, on the local services, reported as ratios. Prints each comparison's
 * figures as it ends, writes docs/benchmarks.md and docs/benchmarks.json, then draws
 * docs/benchmarks.svg. `npm run bench -- --chart` only redraws the chart from docs/benchmarks.json.
 *
 * `--only <steps>` runs some of the steps (comma-separated, in their usual order: delete, purge,
 * reindex, scale, search, frameworks, metrics-scrape, expunge, tracing, migration, outbox, outbox-sweep)
 * and writes its report to .cache/bench instead of docs/, so a partial run never replaces the
 * published one.
 *
 * `scale` is the search matrix: at each size of `--sizes` (or `BENCH_SIZES`; videos of the
 * realistic catalogue on top of the sample, comma-separated: 0,200000,1000000, or 0,20000 with
 * `--quick`) it imports the sample and the catalogue into an empty index through the CLI, compares
 * search on the index as the import left it while videos are deleted and restored through the API
 * (live), reindexes, and compares again with nothing else running (fresh). `search` runs one such
 * comparison on whatever the bench's index holds (the sample when it holds nothing), with the churn
 * when `--churn` is given: the probe of an API change. A full run leaves it out (`scale` measured
 * it at every size), and `frameworks` too, a probe that takes the search comparisons' frameworks'
 * floor apart layer by layer on whatever the index holds; `metrics-scrape`, `expunge` and `tracing`
 * search what `scale` left, and `migration` migrates a scratch database of the largest size.
 * `--profile` samples the API's CPU in its measured rounds of the soft delete and of every search
 * comparison, and the worker's in the purge's, and prints it part by part (bench/profile-table.ts).
 */
import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { emptyBenchData } from './lib/bench-data';
import { applyBenchEnv, freePort, openBenchContext, PATHS, startApi, VideoImporter } from './lib/kit';
import { inspectOption, roundProfiler, type CpuProfile, type RoundProfiler } from './lib/cpu-profile';
import { profileDiffTable, profileTable, writeProfiles } from './profile-table';
import {
  machine,
  printTable,
  readReport,
  writeReport,
  type Report,
  type Table,
  type Target,
} from './lib/report';
import { writeChart } from './lib/chart';
import { watchElasticsearch, type MeasuredRun } from './lib/cpu';
import type { Alongside } from './lib/load';
import {
  atLeast,
  atMost,
  count,
  cpuMsPer,
  cpuPer,
  loadHeader,
  MB,
  megabytes,
  ms,
  rate,
  row,
  warmedUp,
} from './lib/figures';
import type { RunStats } from './lib/stats';
import { benchSoftDelete } from './delete.bench';
import { benchMediaCleanup } from './media-cleanup.bench';
import { benchExpunge } from './expunge.bench';
import { benchMetricsScrape } from './metrics-scrape.bench';
import { benchPurge, type PurgeBench } from './purge.bench';
import { benchReindex } from './reindex.bench';
import { benchScale, type IndexPhase, type ScaleBench } from './scale.bench';
import { benchSearch, type SearchBench } from './search.bench';
import { benchFrameworks, frameworksTable } from './frameworks.bench';
import { benchTracing, SAMPLED_RATIO, type TracingSide } from './tracing.bench';
import {
  budgetTable,
  matrixTable,
  scaleTable,
  searchTable,
  searchTargets,
  suggestTarget,
} from './search-matrix';
import { parseSizes } from './lib/sizes';
import { benchIdentityMigration } from './identity-migration.bench';

import { benchOutboxPrune } from './outbox.bench';
import { benchOutboxSweep } from './outbox-sweep.bench';

const STEPS = [
  'delete',
  'purge',
  'reindex',
  'scale',
  'search',
  'frameworks',
  'metrics-scrape',
  'expunge',
  'tracing',
  'migration',
  'outbox',
  'outbox-sweep',
] as const;
type Step = (typeof STEPS)[number];
/**
 * `search` alone probes whatever the index holds; a full run has measured it within `scale`, and
 * the frameworks' floor in it. `frameworks` takes that floor apart, layer by layer: a probe too.
 */
const DEFAULT_STEPS = STEPS.filter((step) => step !== 'search' && step !== 'frameworks');

const { values: options } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    chart: { type: 'boolean', default: false },
    only: { type: 'string' },
    sizes: { type: 'string' },
    churn: { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
  },
});
const quick = options.quick;
const only = options.only?.split(',').map((step) => step.trim());
const unknown = only?.filter((step) => !(STEPS as readonly string[]).includes(step)) ?? [];
if (unknown.length > 0) {
  console.error(`--only: unknown step ${unknown.join(', ')} (steps: ${STEPS.join(', ')})`);
  process.exit(2);
}
const steps = new Set<Step>((only as Step[] | undefined) ?? DEFAULT_STEPS);
/** Where the report goes: a partial run must not replace the published one. */
const reportDir = only ? PATHS.cache : PATHS.docs;

/** Measured rounds of each comparison; even, so that `roundOrder` balances them. */
const ROUNDS = {
  search: quick ? 2 : 6,
  purge: quick ? 2 : 4,
  reindex: quick ? 2 : 4,
  scrape: quick ? 2 : 6,
  expunge: 2,
};
/** Documents rewritten before each round of the expunge step: a day's churn of a busy catalogue. */
const EXPUNGE_CHURN = 0.01;
/** Measured seconds of search load per side, over all its rounds. */
const SEARCH_SECONDS = quick ? 8 : 48;
/** Scrapes of the API's metrics port per second while searches are measured beside none. */
const SCRAPES_PER_SECOND = 100;
/** Videos of the realistic catalogue on top of the sample at each size of the search matrix. */
const SIZES = parseSizes(
  options.sizes ?? process.env.BENCH_SIZES ?? (quick ? '0,20000' : '0,200000,1000000'),
);
const CONCURRENCY = 16;
/**
 * Search connections (issue 31): enough to keep both cores busy on every side, with half the queue
 * that 16 put in front of each request, so that its latency carries more of its own cost.
 */
const SEARCH_CONCURRENCY = 8;
/** Delivered events (each with a delivery) the outbox step prunes. */
const OUTBOX_EVENTS = quick ? 100_000 : 1_000_000;
/** Undelivered events to a receiver that is down: the outbox-sweep step's small and large backlogs. */
const SWEEP_BACKLOGS = [100, 100_000];
/** The sample's size: every step but scale, search and the outbox's runs on exactly the sample. */
const SAMPLE_VIDEOS = 21_713;
/** Measured rounds of the soft-delete comparison; even, so that `roundOrder` balances them. */
const DELETE_ROUNDS = quick ? 2 : 4;
/** Deletion jobs the worker runs at once in the purge step, and the baselines' concurrency there. */
const PURGE_CONCURRENCY = 8;

const cpuPerVideo = (run: PurgeBench['worker'], node: string) =>
  cpuPer(run.cpu, run.videos, [node, 'elasticsearch', 'mysql', 's3proxy', 'redis']);

async function main(): Promise<void> {
  if (options.chart) {
    writeChart(readReport(PATHS.docs), PATHS.docs);
    return;
  }
  const started = performance.now();
  const config = applyBenchEnv();
  await watchElasticsearch(config.ELASTICSEARCH_URL);
  const redis = new Redis(config.REDIS_URL);
  await redis.flushdb();
  redis.disconnect();
  const context = await openBenchContext(config);
  const log = (message: string) =>
    console.log(`[bench ${((performance.now() - started) / 1000).toFixed(0)} s] ${message}`);
  try {
    // The sample is the data of every step but the searches, which search what the index holds
    // (the sample when it holds nothing); the scale step empties it and imports each size itself.
    const videos = await context.videos.count();
    const needsSample =
      ['delete', 'purge', 'reindex'].some((step) => steps.has(step as Step)) ||
      (videos === 0 &&
        ['search', 'frameworks', 'metrics-scrape', 'expunge', 'tracing'].some((step) =>
          steps.has(step as Step),
        ));
    if (needsSample && videos !== SAMPLE_VIDEOS) {
      log('resetting the bench database to the sample');
      await emptyBenchData(context);
      await context.get(VideoImporter).importFile(PATHS.sample);
      await context.indexAdmin.refresh();
    }

    const tables: Table[] = [];
    const measured = (table: Table) => {
      tables.push(table);
      printTable(table);
    };
    const targets: Target[] = [];
    const figures: Record<string, unknown> = {};

    /**
     * Runs `compare` on an API started for it alone; with `--profile`, the API's CPU profiled in
     * the rounds `compare` hands the profiler to (a probe: sampling costs it CPU), and printed as
     * shares of the comparison's CPU per `per` (search, delete) on its API side.
     */
    const withApi = async <T extends { api: MeasuredRun }>(
      name: string,
      per: string,
      compare: (apiUrl: string, profileApi: Alongside | undefined) => Promise<T>,
    ): Promise<T> => {
      const inspector = options.profile ? await freePort() : undefined;
      const api = await startApi(inspector ? { NODE_OPTIONS: inspectOption(inspector) } : {});
      let profiler: RoundProfiler | undefined;
      try {
        profiler = inspector ? await roundProfiler(inspector) : undefined;
        const result = await compare(api.url, profiler?.alongside);
        if (profiler) {
          const files = writeProfiles(profiler.profiles, PATHS.cache, { process: 'api', name });
          measured(profileTable({ run: result.api, process: 'api', per }, profiler.profiles, name, files));
        }
        return result;
      } finally {
        profiler?.close();
        await api.process.stop();
      }
    };

    if (steps.has('delete')) {
      log('soft delete');
      const softDelete = await withApi('soft-delete', 'delete', (apiUrl, profileApi) =>
        benchSoftDelete(config, context, apiUrl, {
          concurrency: CONCURRENCY,
          videos: quick ? 1_000 : 2_000,
          rounds: DELETE_ROUNDS,
          warmUpSeconds: quick ? { min: 20, max: 60 } : { min: 40, max: 300 },
          ...(profileApi ? { profileApi } : {}),
        }),
      );
      figures.softDelete = softDelete;
      const parts = ['elasticsearch', 'mysql', 'redis'];
      measured({
        title:
          `Soft delete of ${count(softDelete.videos)} videos (${CONCURRENCY} connections; ${DELETE_ROUNDS} alternating rounds each, a b b a…, the videos restored between rounds; ` +
          `${warmedUp(softDelete.warmUp)}). Throughput, not goals: the floor / raw script ` +
          `${(softDelete.floor.perSecond / softDelete.raw.perSecond).toFixed(2)} (what an HTTP hop costs any service making these writes), ` +
          `the API / the floor ${(softDelete.api.perSecond / softDelete.floor.perSecond).toFixed(2)}`,
        header: loadHeader(
          'CPU ms per video: Node (API or script) / load generator / ES (of it JIT compiler) / MySQL / Redis',
        ),
        rows: [
          [
            ...row('API: DELETE /api/videos/{id}?retentionDays=30', softDelete.api),
            cpuPer(softDelete.api.cpu, softDelete.api.requests, ['api', 'bench', ...parts]),
          ],
          [
            ...row('raw script: same SQL, outbox event, BullMQ job, bulk index', softDelete.raw),
            `${cpuPer(softDelete.raw.cpu, softDelete.raw.requests, ['bench'])} / – / ${cpuPer(softDelete.raw.cpu, softDelete.raw.requests, parts)}`,
          ],
          [
            ...row('floor: the raw script behind a bare node:http server', softDelete.floor),
            cpuPer(softDelete.floor.cpu, softDelete.floor.requests, ['floor', 'bench', ...parts]),
          ],
        ],
      });

      targets.push(
        atLeast(
          'soft delete throughput, API / raw script',
          softDelete.api.perSecond / softDelete.raw.perSecond,
          0.8,
        ),
      );
    }

    if (steps.has('purge')) {
      log('purge');
      const purge = await benchPurge(config, context, {
        videos: quick ? 300 : 600,
        rounds: ROUNDS.purge,
        concurrency: PURGE_CONCURRENCY,
        warmUpSeconds: quick ? { min: 20, max: 90 } : { min: 40, max: 300 },
        profile: options.profile,
      });
      const { profiles: purgeProfiles, ...purgeFigures } = purge;
      figures.purge = purgeFigures;
      measured({
        title:
          `Purge end to end (objects, document, row, audit; 2 objects per video; concurrency ${PURGE_CONCURRENCY}; ${ROUNDS.purge} alternating rounds each, a b b a…, ` +
          `${warmedUp(purge.warmUp)})`,
        header: [
          'system',
          'videos',
          'seconds',
          'videos/s',
          'CPU ms per video: Node / ES (of it JIT compiler) / MySQL / S3Proxy / Redis',
        ],
        rows: [
          [
            'worker process (BullMQ jobs)',
            purge.worker.videos,
            purge.worker.seconds.toFixed(2),
            rate(purge.worker.perSecond),
            cpuPerVideo(purge.worker, 'worker'),
          ],
          [
            'raw script, same writes (bench/raw-purge.ts)',
            purge.raw.videos,
            purge.raw.seconds.toFixed(2),
            rate(purge.raw.perSecond),
            cpuPerVideo(purge.raw, 'bench'),
          ],
        ],
      });
      if (purgeProfiles) {
        const side = (
          label: string,
          run: PurgeBench['raw'],
          process: 'worker' | 'bench',
          profiles: CpuProfile[],
        ) => ({
          label,
          profiled: { run: { cpu: run.cpu, requests: run.videos }, process, per: 'purge' },
          profiles,
        });
        const sides = [
          side('worker', purge.worker, 'worker', purgeProfiles.worker),
          side('raw script', purge.raw, 'bench', purgeProfiles.raw),
        ] as const;
        for (const { profiled, profiles } of sides) {
          const files = writeProfiles(profiles, PATHS.cache, { process: profiled.process, name: 'purge' });
          measured(profileTable(profiled, profiles, 'purge', files));
        }
        measured(profileDiffTable('The purge, the worker against the raw script', [...sides]));
      }
      const purgeRatio = purge.worker.perSecond / purge.raw.perSecond;
      targets.push(atLeast('purge rate, worker / raw script', purgeRatio, 0.8));

      log('media cleanup');
      const cleanup = await benchMediaCleanup(config, context, {
        videos: quick ? 500 : 2_000,
        objectsPerVideo: 2,
        rounds: ROUNDS.purge,
        concurrency: PURGE_CONCURRENCY,
      });
      figures.mediaCleanup = cleanup;
      const cleanupRow = (name: string, run: MeasuredRun) => [
        ...row(name, run),
        cpuPer(run.cpu, run.requests, ['bench', 's3proxy']),
      ];
      measured({
        title: `Permanent delete's storage cleanup alone (${count(cleanup.videos)} videos of ${cleanup.objectsPerVideo} objects each, concurrency ${PURGE_CONCURRENCY}; ${ROUNDS.purge} alternating rounds each, a b b a…, after a warm-up)`,
        header: [
          'system',
          'videos/s',
          'p50 ms',
          'p99 ms',
          'videos',
          'errors',
          'CPU ms per video: Node / S3Proxy',
        ],
        rows: [
          cleanupRow('StorageCleaner.deleteMedia (listing, shared DeleteObjects)', cleanup.cleaner),
          cleanupRow('raw script: ListObjectsV2 + DeleteObjects per video', cleanup.raw),
        ],
      });
      targets.push(
        atLeast(
          'media cleanup rate, storage cleaner / raw S3 calls',
          cleanup.cleaner.perSecond / cleanup.raw.perSecond,
          0.8,
        ),
      );
    }

    if (steps.has('reindex')) {
      log('reindex');
      const reindex = await benchReindex({ rounds: ROUNDS.reindex });
      figures.reindex = reindex;
      measured({
        title: `Full reindex from MySQL (the sample; ${ROUNDS.reindex} alternating rounds each, a b b a…, after a warm-up)`,
        header: ['system', 'documents', 'seconds', 'docs/s', 'peak RSS MB'],
        rows: [
          [
            'cli reindex (new index, catch-up, alias swap)',
            reindex.service.documents,
            reindex.service.seconds.toFixed(2),
            rate(reindex.service.perSecond),
            megabytes(reindex.service.peakRssBytes),
          ],
          [
            'raw helpers.bulk',
            reindex.raw.documents,
            reindex.raw.seconds.toFixed(2),
            rate(reindex.raw.perSecond),
            megabytes(reindex.raw.peakRssBytes),
          ],
        ],
      });
      const reindexRatio = reindex.service.perSecond / reindex.raw.perSecond;
      targets.push(atLeast('reindex rate, service / raw bulk', reindexRatio, 0.8));
    }

    /** One search comparison on the index as it is, with the API started for it alone. */
    const compareSearch = (churn: boolean, name: string): Promise<SearchBench> =>
      withApi(name, 'search', (apiUrl, profileApi) =>
        benchSearch(config, context, apiUrl, {
          concurrency: SEARCH_CONCURRENCY,
          seconds: SEARCH_SECONDS,
          rounds: ROUNDS.search,
          warmUpSeconds: quick ? { min: 8, max: 16 } : { min: 24, max: 300 },
          churn,
          ...(profileApi ? { profileApi } : {}),
        }),
      );

    if (steps.has('scale')) {
      const first = tables.length;
      const runs: ScaleBench[] = [];
      const matrix: Target[] = [];
      for (const size of SIZES) {
        log(`scale: the sample and ${count(size)} videos of the realistic catalogue`);
        const search = async (phase: IndexPhase) => {
          log(`search at ${count(SAMPLE_VIDEOS + size)} videos, ${phase}`);
          const result = await compareSearch(phase === 'live', `${SAMPLE_VIDEOS + size}-${phase}`);
          measured(searchTable(result, phase));
          matrix.push(...searchTargets(result, phase));
          return result;
        };
        const run = await benchScale(context, size, search);
        runs.push(run);
        figures.scale = runs;
        printTable(scaleTable([run]));
      }
      // The matrix's summary first in the report, before each comparison's figures.
      const summary = matrixTable(runs);
      const budget = budgetTable(
        runs.flatMap((run) =>
          (['live', 'fresh'] as const).map((phase) => ({ videos: run.videos, phase, search: run[phase] })),
        ),
      );
      tables.splice(first, 0, summary, budget, scaleTable(runs));
      printTable(summary);
      printTable(budget);
      const largest = runs.at(-1)!;
      const peak =
        Math.max(
          largest.sampleImport.peakRssBytes,
          largest.catalogueImport?.peakRssBytes ?? 0,
          largest.reindex.peakRssBytes,
          largest.workerPeakRssBytes,
        ) / MB;
      // The search targets first: they are what issues 19 and 31 are about.
      targets.unshift(
        ...matrix,
        // Issue 20: suggestions answer within the search's latency, at any catalogue size.
        ...suggestTarget(largest.fresh, 'fresh'),
        {
          name: `peak RSS MB (/usr/bin/time), worker and CLI at ${largest.videos} videos`,
          value: peak,
          goal: '< 400',
          met: peak < 400,
        },
      );
    }

    if (steps.has('search')) {
      const phase = options.churn ? 'with churn' : 'quiet';
      log(`search, ${phase}`);
      const search = await compareSearch(options.churn, options.churn ? 'churn' : 'quiet');
      figures.search = search;
      measured(searchTable(search, phase));
      measured(budgetTable([{ videos: search.videos, phase, search }]));
      targets.unshift(...searchTargets(search, phase), ...suggestTarget(search, phase));
    }

    if (steps.has('frameworks')) {
      log("the frameworks' floor, layer by layer");
      const ladder = await benchFrameworks(config, {
        videos: await context.videos.count(),
        concurrency: SEARCH_CONCURRENCY,
        seconds: SEARCH_SECONDS,
        rounds: ROUNDS.search,
        warmUpSeconds: quick ? { min: 8, max: 16 } : { min: 24, max: 300 },
      });
      figures.frameworks = ladder;
      measured(frameworksTable(ladder));
    }

    if (steps.has('metrics-scrape')) {
      log('metrics scrape');
      const api = await startApi();
      const scrape = await benchMetricsScrape(context, api, {
        concurrency: CONCURRENCY,
        seconds: SEARCH_SECONDS,
        rounds: ROUNDS.scrape,
        warmUpSeconds: quick ? 8 : 24,
        scrapesPerSecond: SCRAPES_PER_SECOND,
      });
      await api.process.stop();
      figures.metricsScrape = scrape;
      measured({
        title:
          `Search while the API's metrics port is scraped (${CONCURRENCY} connections, ${SEARCH_SECONDS} s each in ` +
          `${ROUNDS.scrape} alternating rounds, a b b a…; ${scrape.scrapesPerSecond} scrapes a second on METRICS_PORT ` +
          `during the scraped rounds)`,
        header: loadHeader('CPU ms per search: API / ES (of it JIT compiler) / MySQL'),
        rows: [
          [
            ...row('search, metrics not scraped', scrape.quiet),
            cpuPer(scrape.quiet.cpu, scrape.quiet.requests, ['api', 'elasticsearch', 'mysql']),
          ],
          [
            ...row('search, metrics scraped', scrape.scraped),
            cpuPer(scrape.scraped.cpu, scrape.scraped.requests, ['api', 'elasticsearch', 'mysql']),
          ],
          [...row('the scrapes (GET /metrics on METRICS_PORT)', scrape.scrapes), ''],
        ],
      });
      targets.push(
        atMost(
          `search p99, metrics scraped ${scrape.scrapesPerSecond}/s / not scraped`,
          scrape.scraped.p99 / scrape.quiet.p99,
          1.05,
        ),
      );
    }

    if (steps.has('expunge')) {
      log('expunge: search during the expunge sweep and without');
      const api = await startApi();
      const expunge = await benchExpunge(context, api.url, {
        concurrency: SEARCH_CONCURRENCY,
        rounds: ROUNDS.expunge,
        churnShare: EXPUNGE_CHURN,
      });
      await api.process.stop();
      figures.expunge = expunge;
      measured({
        title:
          `Search during the expunge sweep and without, at ${count(expunge.documents)} documents ` +
          `(${SEARCH_CONCURRENCY} connections; ${ROUNDS.expunge} alternating rounds, a b b a, after an unmeasured ` +
          `round of each; before every round ${EXPUNGE_CHURN * 100} % of the documents, drawn at random, rewritten ` +
          `and left to settle; one side searches while the expunge runs, the other as long with nothing beside it)`,
        header: loadHeader('CPU ms per search: API / ES (of it JIT compiler) / MySQL'),
        rows: [
          [
            ...row('search, no expunge', expunge.quiet),
            cpuPer(expunge.quiet.cpu, expunge.quiet.requests, ['api', 'elasticsearch', 'mysql']),
          ],
          [
            ...row('search during the expunge', expunge.expunging),
            cpuPer(expunge.expunging.cpu, expunge.expunging.requests, ['api', 'elasticsearch', 'mysql']),
          ],
        ],
      });
      measured({
        title:
          'The expunges measured above (IndexAdmin.expungeDeletes: a forcemerge with only_expunge_deletes)',
        header: [
          'documents rewritten',
          'deleted documents before → after',
          'segments before → after',
          'seconds',
        ],
        rows: expunge.expunges.map((run) => [
          count(run.churned),
          `${count(run.deletedBefore)} → ${count(run.deletedAfter)}`,
          `${run.segmentsBefore} → ${run.segmentsAfter}`,
          run.seconds.toFixed(1),
        ]),
      });
      targets.push(
        atMost(
          `search p99 at ${count(expunge.documents)} documents, during the expunge / without`,
          expunge.expunging.p99 / expunge.quiet.p99,
          1.5,
        ),
      );
    }

    if (steps.has('tracing')) {
      log('tracing: off, on, and on with 5 % of traces recorded');
      const baseline = process.env.BENCH_TRACING_BASELINE;
      const tracing = await benchTracing(context, {
        concurrency: SEARCH_CONCURRENCY,
        seconds: SEARCH_SECONDS,
        rounds: ROUNDS.search,
        warmUpSeconds: quick ? { min: 8, max: 16 } : { min: 24, max: 300 },
        baseline,
      });
      figures.tracing = tracing;
      const { off, on, sampled, exported } = tracing;
      const sampledShare = `${(SAMPLED_RATIO * 100).toFixed(0)} %`;
      const parts = ['elasticsearch', 'mysql', 'redis'];
      measured({
        title:
          `Search with tracing off and on (${SEARCH_CONCURRENCY} connections, ${SEARCH_SECONDS} s each in ` +
          `${ROUNDS.search} alternating rounds, a b c c b a…, after a warm-up of ${tracing.warmUp.seconds.toFixed(0)} s ` +
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
      });
      const apiCpu = (run: MeasuredRun, part: string) => cpuMsPer(run.cpu, run.requests, part);
      const measures: [string, (run: MeasuredRun, part: string) => number, (v: number) => string][] = [
        ['req/s', (run) => run.perSecond, rate],
        ['p50 ms', (run) => run.p50, ms],
        ['p99 ms', (run) => run.p99, ms],
        ['API CPU ms per search', apiCpu, (v) => v.toFixed(2)],
      ];
      /** A row per measure: its value on each side, then each side after the first against the first. */
      const compared = (sides: TracingSide[]) =>
        measures.map(([measure, value, shown]) => {
          const values = sides.map((side) => value(tracing[side]!, `api-${side}`));
          return [measure, ...values.map(shown), ...values.slice(1).map((v) => (v / values[0]!).toFixed(2))];
        });
      measured({
        title: `Search with tracing on against off, as ratios`,
        header: ['measure', 'off', 'on', `on, ${sampledShare}`, 'on / off', `on, ${sampledShare} / off`],
        rows: compared(['off', 'on', 'sampled']),
      });
      if (tracing.before) {
        // Off against no tracing code at all: the cost of what stays in the code when it is off.
        measured({
          title: `Search with tracing off against an API built before tracing existed (${baseline})`,
          header: ['measure', 'before tracing', 'off', 'off / before'],
          rows: compared(['before', 'off']),
        });
      }
    }

    if (steps.has('migration')) {
      const videos = Math.max(...SIZES) + SAMPLE_VIDEOS;
      log(`migration: exact identities at ${count(videos)} videos`);
      const migration = await benchIdentityMigration(config, videos, log);
      figures.identityMigration = migration;
      const load = (name: string, s: RunStats) => [name, rate(s.perSecond), ms(s.p50), ms(s.p99), s.requests];
      measured({
        title: `Migration to exact identities at ${count(videos)} videos: ${migration.seconds.toFixed(1)} s, under a concurrent load of trash reads, page checks and row updates (worst during it: read ${ms(migration.worstDuring.read)} ms, write ${ms(migration.worstDuring.write)} ms)`,
        header: ['load', 'ops/s', 'p50 ms', 'p99 ms', 'operations'],
        rows: [
          load('reads during the migration', migration.during.reads),
          load('reads without a migration', migration.before.reads),
          load('writes during the migration', migration.during.writes),
          load('writes without a migration', migration.before.writes),
        ],
      });
      // Reads and writes go on: neither stops for longer than a second at any moment.
      targets.push(
        atMost('migration: worst concurrent write, seconds', migration.worstDuring.write / 1000, 1),
        atMost('migration: worst concurrent read, seconds', migration.worstDuring.read / 1000, 1),
      );
    }

    if (steps.has('outbox')) {
      log(`outbox prune: ${count(OUTBOX_EVENTS)} delivered events past the retention`);
      const outbox = await benchOutboxPrune(context, { events: OUTBOX_EVENTS });
      figures.outbox = outbox;
      const worst = (stats: { p50: number; p99: number; maxMs: number; requests: number }) =>
        `p50 ${ms(stats.p50)}, p99 ${ms(stats.p99)}, worst ${ms(stats.maxMs)} ms (${count(stats.requests)})`;
      measured({
        title: `Outbox prune: ${count(outbox.events)} delivered events and their deliveries past the retention, while events are recorded and due deliveries read`,
        header: ['measure', 'value'],
        rows: [
          ['fill (sequence engine, INSERT … SELECT)', `${outbox.fillSeconds.toFixed(0)} s`],
          [
            'rows removed (events + deliveries)',
            `${count(outbox.removed)} in ${outbox.seconds.toFixed(1)} s: ${rate(outbox.perSecond)} rows/s (${outbox.runs} runs of the sweep)`,
          ],
          ['prune statements (batches of 1,000)', worst(outbox.statements)],
          ['writer: one event and its delivery per transaction', worst(outbox.writer)],
          ['reader: due deliveries (the webhook sweep)', worst(outbox.reader)],
          ['writer, 20 s before the prune (baseline)', worst(outbox.baseline.writer)],
          ['reader, 20 s before the prune (baseline)', worst(outbox.baseline.reader)],
          ['InnoDB row lock waits during the prune (whole server)', count(outbox.rowLockWaits)],
        ],
      });
      // No long locks: recording an event never waits a second for the prune.
      targets.push({
        name: 'outbox prune: worst latency of a concurrent event write, ms',
        value: outbox.writer.maxMs,
        goal: '< 1000',
        met: outbox.writer.maxMs < 1000,
      });
    }

    if (steps.has('outbox-sweep')) {
      log(
        `outbox sweep: backlogs of ${SWEEP_BACKLOGS.map(count).join(' and ')} due deliveries to a receiver that is down`,
      );
      const sweep = await benchOutboxSweep(config, { backlogs: SWEEP_BACKLOGS, passes: quick ? 20 : 60 });
      figures.outboxSweep = sweep;
      const passes = (p: {
        p50Ms: number;
        maxMs: number;
        rowsRead: number;
        found: number;
        passes: number;
      }) => [ms(p.p50Ms), ms(p.maxMs), count(Math.round(p.rowsRead)), count(Math.round(p.found)), p.passes];
      measured({
        title: `Webhook sweep, one pass, at each backlog of due deliveries to a receiver that is down (5 events per video; ${count(20)} pending for a healthy receiver beside them; one MySQL connection; rows read = the session's Handler_read_* counters)`,
        header: ['backlog', 'sweep', 'p50 ms', 'max ms', 'rows read', 'found to send', 'passes'],
        rows: sweep.backlogs.flatMap((b) => [
          [count(b.backlog), 'windows of 500 per receiver (now)', ...passes(b.window)],
          [count(b.backlog), 'every due row, first 500 (before)', ...passes(b.before)],
        ]),
      });
      measured({
        title: 'EXPLAIN of the sweep window’s query (SWEEP_WINDOW_SQL), at the largest backlog',
        header: ['access'],
        rows: sweep.explain.map((line) => [line]),
      });
      const small = sweep.backlogs[0]!;
      const large = sweep.backlogs.at(-1)!;
      const ratios = {
        windowMs: large.window.p50Ms / small.window.p50Ms,
        windowRows: large.window.rowsRead / small.window.rowsRead,
        beforeMs: large.before.p50Ms / small.before.p50Ms,
        beforeRows: large.before.rowsRead / small.before.rowsRead,
      };
      figures.outboxSweepRatios = ratios;
      measured({
        title: `Webhook sweep: cost of a pass at ${count(large.backlog)} against ${count(small.backlog)} due deliveries`,
        header: ['sweep', 'time ratio (p50)', 'rows-read ratio'],
        rows: [
          ['windows of 500 per receiver (now)', ratios.windowMs.toFixed(1), ratios.windowRows.toFixed(1)],
          ['every due row, first 500 (before)', ratios.beforeMs.toFixed(1), ratios.beforeRows.toFixed(1)],
        ],
      });
      // Bounded: a pass at a thousand times the backlog reads at most the window's rows more.
      targets.push(atMost('outbox sweep: rows read per pass, 100,000 / 100 backlog', ratios.windowRows, 10));
    }

    const report: Report = {
      date: new Date().toISOString(),
      mode: only ? 'partial' : quick ? 'quick' : 'full',
      command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
      machine: await machine(config.ELASTICSEARCH_URL),
      targets,
      figures,
      tables,
    };
    writeReport(report, reportDir);
    console.log(
      `\n${report.targets.map((t) => `${t.met ? 'met ' : 'MISS'}  ${t.name}: ${t.value.toFixed(2)} (${t.goal})`).join('\n')}`,
    );
    log(`written ${reportDir}/benchmarks.md, benchmarks.json`);
    writeChart(report, reportDir);
    log(`written ${reportDir}/benchmarks.svg`);
  } finally {
    await context.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
