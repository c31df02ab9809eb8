/**
 * `npm run bench` (and `npm run bench -- --quick`, under 3 minutes): every hot path against its
 * baseline in the same run, on the local services, reported as ratios. Prints each comparison's
 * figures as it ends, writes docs/benchmarks.md and docs/benchmarks.json, then draws
 * docs/benchmarks.svg. `npm run bench -- --chart` only redraws the chart from docs/benchmarks.json.
 *
 * `--only <steps>` runs some of the steps (comma-separated, in their usual order: delete, purge,
 * reindex, scale, search, metrics-scrape, migration, outbox, outbox-sweep) and writes its report to .cache/bench
 * instead of docs/, so a partial run never replaces the published one. `--scale <n>` (or
 * `BENCH_SCALE`) sets the size of the realistic catalogue the scale step imports and the search step
 * then searches. `search` and `metrics-scrape` alone search whatever the bench's index holds, e.g.
 * the million a previous scale step left (the sample when it holds nothing).
 */
import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { LEDGER_PREFIX } from '@app/shared/video/deletion-ledger.service';
import { applyBenchEnv, openBenchContext, PATHS, startApi, VideoImporter } from './lib/kit';
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
import { watchElasticsearch, type CpuSeconds } from './lib/cpu';
import type { RunStats } from './lib/stats';
import { benchSoftDelete } from './delete.bench';
import { benchMetricsScrape } from './metrics-scrape.bench';
import { benchPurge, type PurgeBench } from './purge.bench';
import { benchReindex } from './reindex.bench';
import { benchScale, type ScaleBench } from './scale.bench';
import { benchSearch, type SearchBench } from './search.bench';
import { benchIdentityMigration } from './identity-migration.bench';

import { benchOutboxPrune } from './outbox.bench';
import { benchOutboxSweep } from './outbox-sweep.bench';

const STEPS = [
  'delete',
  'purge',
  'reindex',
  'scale',
  'search',
  'metrics-scrape',
  'migration',
  'outbox',
  'outbox-sweep',
] as const;
type Step = (typeof STEPS)[number];

const { values: options } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    chart: { type: 'boolean', default: false },
    only: { type: 'string' },
    scale: { type: 'string' },
  },
});
const quick = options.quick;
const only = options.only?.split(',').map((step) => step.trim());
const unknown = only?.filter((step) => !(STEPS as readonly string[]).includes(step)) ?? [];
if (unknown.length > 0) {
  console.error(`--only: unknown step ${unknown.join(', ')} (steps: ${STEPS.join(', ')})`);
  process.exit(2);
}
const steps = new Set<Step>((only as Step[] | undefined) ?? STEPS);
/** Where the report goes: a partial run must not replace the published one. */
const reportDir = only ? PATHS.cache : PATHS.docs;

/** Measured rounds of each comparison; even, so that `roundOrder` balances them. */
const ROUNDS = { search: quick ? 2 : 6, purge: quick ? 2 : 4, reindex: quick ? 2 : 4, scrape: quick ? 2 : 6 };
/** Measured seconds of search load per side, over all its rounds. */
const SEARCH_SECONDS = quick ? 8 : 48;
/** Scrapes of the API's metrics port per second while searches are measured beside none. */
const SCRAPES_PER_SECOND = 100;
/** Videos of the realistic catalogue: a million, or a small one that keeps `--quick` quick. */
const SCALE = Number(options.scale ?? process.env.BENCH_SCALE ?? (quick ? 20_000 : 1_000_000));
const CONCURRENCY = 16;
const MB = 2 ** 20;
/** Delivered events (each with a delivery) the outbox step prunes. */
const OUTBOX_EVENTS = quick ? 100_000 : 1_000_000;
/** Undelivered events to a receiver that is down: the outbox-sweep step's small and large backlogs. */
const SWEEP_BACKLOGS = [100, 100_000];
/** The sample's size: every step but scale, search and the outbox's runs on exactly the sample. */
const SAMPLE_VIDEOS = 21_713;

const ms = (v: number) => v.toFixed(1);
const rate = (v: number) => v.toFixed(0);
const count = (v: number) => v.toLocaleString('en-US');
/** CPU ms per unit of work for each part; Elasticsearch's JIT compiler share in brackets. */
const cpuPer = (cpu: CpuSeconds, units: number, parts: string[]) => {
  const perUnit = (part: string) => (((cpu[part] ?? 0) * 1000) / units).toFixed(2);
  return parts
    .map((part) =>
      part === 'elasticsearch' ? `${perUnit(part)} (${perUnit('elasticsearch-jit')})` : perUnit(part),
    )
    .join(' / ');
};
const cpuPerVideo = (run: PurgeBench['worker'], node: string) =>
  cpuPer(run.cpu, run.videos, [node, 'elasticsearch', 'mysql', 's3proxy', 'redis']);
const cpuPerRequest = (run: SearchBench['api']) =>
  cpuPer(run.cpu, run.requests, ['api', 'elasticsearch', 'mysql', 'bench']);
/** The columns of a table of `row`s, and what its CPU column holds. */
const loadHeader = (cpu: string) => ['system', 'req/s', 'p50 ms', 'p99 ms', 'requests', 'errors', cpu];
const row = (name: string, s: RunStats) => [
  name,
  rate(s.perSecond),
  ms(s.p50),
  ms(s.p99),
  s.requests,
  s.errors,
];
/** Targets on a ratio, named "what, product / baseline". */
const atLeast = (name: string, ratio: number, bound: number): Target => ({
  name,
  value: ratio,
  goal: `≥ ${bound}`,
  met: ratio >= bound,
});
const atMost = (name: string, ratio: number, bound: number): Target => ({
  name,
  value: ratio,
  goal: `≤ ${bound}`,
  met: ratio <= bound,
});

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
    // (the sample when it holds nothing); the scale step imports its catalogue on top of the sample.
    const videos = await context.videos.count();
    // The searches search what the index holds, the sample when it holds nothing; the outbox steps need no videos.
    const needsSample =
      ['delete', 'purge', 'reindex', 'scale'].some((step) => steps.has(step as Step)) ||
      (videos === 0 && ['search', 'metrics-scrape'].some((step) => steps.has(step as Step)));
    if (needsSample && videos !== SAMPLE_VIDEOS) {
      log('resetting the bench database to the sample');
      // TRUNCATE: a scale run may have left a million rows behind, and as many documents, which
      // would make every search of the sample a search of a million videos.
      await context.dataSource.query('TRUNCATE TABLE videos');
      await context.dataSource.query('TRUNCATE TABLE deletion_audit');
      for await (const keys of context.storage.listKeys(LEDGER_PREFIX))
        await context.storage.deleteKeys(keys);
      for (const index of await context.indexAdmin.aliasTargets())
        await context.indexAdmin.deleteIndex(index);
      await context.indexAdmin.ensureAlias();
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

    if (steps.has('delete')) {
      log('soft delete');
      const api = await startApi();
      const softDelete = await benchSoftDelete(context, api.url, {
        concurrency: CONCURRENCY,
        amount: quick ? 500 : 2_000,
      });
      await api.process.stop();
      figures.softDelete = softDelete;
      measured({
        title: 'Soft delete through the API',
        header: ['system', 'req/s', 'p50 ms', 'p99 ms', 'requests', 'errors'],
        rows: [row('DELETE /api/videos/{id}?retentionDays=30', softDelete)],
      });
    }

    if (steps.has('purge')) {
      log('purge');
      const purge = await benchPurge(config, context, {
        videos: quick ? 300 : 600,
        rounds: ROUNDS.purge,
        concurrency: 8,
      });
      figures.purge = purge;
      measured({
        title: `Purge end to end (objects, document, row, audit; 2 objects per video; concurrency 8; ${ROUNDS.purge} alternating rounds each, a b b a…, after a warm-up)`,
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
            'raw script, same calls',
            purge.raw.videos,
            purge.raw.seconds.toFixed(2),
            rate(purge.raw.perSecond),
            cpuPerVideo(purge.raw, 'bench'),
          ],
        ],
      });
      const purgeRatio = purge.worker.perSecond / purge.raw.perSecond;
      targets.push(atLeast('purge rate, worker / raw script', purgeRatio, 0.7));
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
            (reindex.service.peakRssBytes / MB).toFixed(0),
          ],
          [
            'raw helpers.bulk',
            reindex.raw.documents,
            reindex.raw.seconds.toFixed(2),
            rate(reindex.raw.perSecond),
            (reindex.raw.peakRssBytes / MB).toFixed(0),
          ],
        ],
      });
      const reindexRatio = reindex.service.perSecond / reindex.raw.perSecond;
      targets.push(atLeast('reindex rate, service / raw bulk', reindexRatio, 0.8));
    }

    if (steps.has('scale')) {
      log(`scale: ${count(SCALE)} videos of the realistic catalogue`);
      const scale: ScaleBench = await benchScale(context, SCALE);
      figures.scale = scale;
      measured({
        title: `Scale: ${count(scale.videos)} videos (the sample and ${count(SCALE)} of the realistic catalogue)`,
        header: ['measure', 'value'],
        rows: [
          [
            'catalogue (bench/lib/catalogue.ts: realistic text, owners and dates, learnt from the sample)',
            scale.generatedSeconds === undefined
              ? 'reused from .cache/bench'
              : `generated in ${scale.generatedSeconds.toFixed(0)} s`,
          ],
          [
            'import rate (rows + documents, no media)',
            `${rate(scale.import.perSecond)} videos/s (${scale.import.seconds.toFixed(0)} s)`,
          ],
          ['import peak RSS', `${(scale.import.peakRssBytes / MB).toFixed(0)} MB`],
          ['reindex', `${scale.reindex.seconds.toFixed(0)} s, ${rate(scale.reindex.perSecond)} docs/s`],
          ['reindex peak RSS', `${(scale.reindex.peakRssBytes / MB).toFixed(0)} MB`],
          [
            'worker peak RSS (throughout, and while reconciling every row)',
            `${(scale.workerPeakRssBytes / MB).toFixed(0)} MB (reconcile: ${scale.reconcileSeconds.toFixed(0)} s)`,
          ],
        ],
      });
      const peak =
        Math.max(scale.import.peakRssBytes, scale.reindex.peakRssBytes, scale.workerPeakRssBytes) / MB;
      targets.push({
        name: `peak RSS MB (/usr/bin/time), worker and CLI at ${scale.videos} videos`,
        value: peak,
        goal: '< 400',
        met: peak < 400,
      });
    }

    if (steps.has('search')) {
      log('search');
      const api = await startApi();
      const search = await benchSearch(config, context, api.url, {
        concurrency: CONCURRENCY,
        seconds: SEARCH_SECONDS,
        rounds: ROUNDS.search,
        warmUpSeconds: quick ? { min: 8, max: 16 } : { min: 24, max: 300 },
      });
      await api.process.stop();
      figures.search = search;
      measured({
        title:
          `Search at ${count(search.videos)} videos (${CONCURRENCY} connections, ${search.queries} known-item queries from the index, ` +
          `${SEARCH_SECONDS} s each in ${ROUNDS.search} alternating rounds, a b c c b a…, after a warm-up of ${search.warmUp.seconds.toFixed(0)} s ` +
          `that ended with Elasticsearch's JIT compiler at ${(search.warmUp.jitShare * 100).toFixed(1)} % of its CPU)`,
        header: loadHeader('CPU ms per request: API / ES (of it JIT compiler) / MySQL / load generator'),
        rows: [
          [
            ...row('API (auth, validation, Elasticsearch, MySQL check)', search.api),
            cpuPerRequest(search.api),
          ],
          [
            ...row('Elasticsearch direct, plain multi_match (title^3, description)', search.plain),
            cpuPerRequest(search.plain),
          ],
          [
            ...row("Elasticsearch direct, the API's own body", search.elasticsearch),
            cpuPerRequest(search.elasticsearch),
          ],
          [
            ...row('API suggestions (the same queries cut as typed)', search.suggest),
            cpuPerRequest(search.suggest),
          ],
          ...(search.mysqlFulltext
            ? [[...row('MySQL FULLTEXT, natural language', search.mysqlFulltext), '']]
            : []),
        ],
      });
      // The search targets first: they are what issue 19 is about.
      const { api: viaApi, plain, elasticsearch: sameBody, suggest } = search;
      targets.unshift(
        atMost('search p50, API / plain multi_match', viaApi.p50 / plain.p50, 1.3),
        atLeast('search throughput, API / plain multi_match', viaApi.perSecond / plain.perSecond, 0.8),
        atMost("search p50, API / Elasticsearch with the API's body", viaApi.p50 / sameBody.p50, 1.2),
        atLeast(
          "search throughput, API / Elasticsearch with the API's body",
          viaApi.perSecond / sameBody.perSecond,
          0.8,
        ),
        // Issue 20: suggestions answer within the search's latency, at any catalogue size.
        atMost('suggest p50 / search p50, both through the API', suggest.p50 / viaApi.p50, 1),
      );
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

    if (steps.has('migration')) {
      const videos = SCALE + SAMPLE_VIDEOS;
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
