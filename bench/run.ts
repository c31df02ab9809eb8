/**
 * `npm run bench` (and `npm run bench -- --quick`, under 3 minutes): every hot path against its
 * baseline in the same run, on the local services, reported as ratios. Prints each comparison's
 * figures as it ends, writes docs/benchmarks.md and docs/benchmarks.json, then draws
 * docs/benchmarks.svg. `npm run bench -- --chart` only redraws the chart from docs/benchmarks.json.
 */
import 'reflect-metadata';
import { Redis } from 'ioredis';
import { VideoImporter } from '@app/shared/importer/video-importer';
import { applyBenchEnv, openBenchContext, PATHS, startApi } from './lib/kit';
import {
  machine,
  printTable,
  readReport,
  writeChart,
  writeReport,
  type Report,
  type Table,
  type Target,
} from './lib/report';
import type { CpuSeconds } from './lib/cpu';
import type { RunStats } from './lib/stats';
import { benchSoftDelete } from './delete.bench';
import { benchPurge, type PurgeBench } from './purge.bench';
import { benchReindex } from './reindex.bench';
import { benchScale, type ScaleBench } from './scale.bench';
import { benchSearch, type SearchBench } from './search.bench';

const quick = process.argv.includes('--quick');
/** Measured rounds of each comparison; even, so that `roundOrder` balances them. */
const ROUNDS = { search: quick ? 2 : 6, purge: quick ? 2 : 4, reindex: quick ? 2 : 4 };
/** Measured seconds of search load per side, over all its rounds. */
const SEARCH_SECONDS = quick ? 8 : 48;
const SCALE = Number(process.env.BENCH_SCALE ?? 1_000_000);
const CONCURRENCY = 16;
const MB = 2 ** 20;

const ms = (v: number) => v.toFixed(1);
const rate = (v: number) => v.toFixed(0);
/** CPU ms per unit of work for each part; Elasticsearch's JIT compiler share in brackets. */
const cpuPer = (cpu: CpuSeconds, count: number, parts: string[]) => {
  const perUnit = (part: string) => (((cpu[part] ?? 0) * 1000) / count).toFixed(2);
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
const row = (name: string, s: RunStats) => [
  name,
  rate(s.perSecond),
  ms(s.p50),
  ms(s.p99),
  s.requests,
  s.errors,
];

async function main(): Promise<void> {
  if (process.argv.includes('--chart')) {
    writeChart(readReport(PATHS.docs), PATHS.docs);
    return;
  }
  const started = performance.now();
  const config = applyBenchEnv();
  const redis = new Redis(config.REDIS_URL);
  await redis.flushdb();
  redis.disconnect();
  const context = await openBenchContext(config);
  const log = (message: string) =>
    console.log(`[bench ${((performance.now() - started) / 1000).toFixed(0)} s] ${message}`);
  try {
    // The sample is the data of every benchmark but the scale run.
    if ((await context.videos.count()) !== 21_713) {
      log('resetting the bench database to the sample');
      // TRUNCATE: a scale run may have left a million rows behind, and as many documents, which
      // would make every search of the sample a search of a million videos.
      await context.dataSource.query('TRUNCATE TABLE videos');
      await context.dataSource.query('TRUNCATE TABLE deletion_audit');
      for (const index of await context.search.aliasTargets()) await context.search.deleteIndex(index);
      await context.search.ensureAlias();
      const importer = new VideoImporter(context.videos, context.storage, context.search);
      await importer.importFile(PATHS.sample);
      await context.search.refresh();
    }

    const tables: Table[] = [];
    const measured = (table: Table) => {
      tables.push(table);
      printTable(table);
    };

    log('search');
    const api = await startApi();
    const search = await benchSearch(config, context, api.url, {
      concurrency: CONCURRENCY,
      seconds: SEARCH_SECONDS,
      rounds: ROUNDS.search,
      warmUpSeconds: quick ? { min: 8, max: 16 } : { min: 24, max: 300 },
    });
    measured({
      title:
        `Search (${CONCURRENCY} connections, query mix from the sample, ${SEARCH_SECONDS} s each in ` +
        `${ROUNDS.search} alternating rounds, a b b a…, after a warm-up of ${search.warmUp.seconds.toFixed(0)} s ` +
        `that ended with Elasticsearch's JIT compiler at ${(search.warmUp.jitShare * 100).toFixed(1)} % of its CPU)`,
      header: [
        'system',
        'req/s',
        'p50 ms',
        'p99 ms',
        'requests',
        'errors',
        'CPU ms per request: API / ES (of it JIT compiler) / MySQL / load generator',
      ],
      rows: [
        [...row('API (auth, validation, Elasticsearch, MySQL check)', search.api), cpuPerRequest(search.api)],
        [
          ...row('Elasticsearch direct, same body', search.elasticsearch),
          cpuPerRequest(search.elasticsearch),
        ],
        [...row('MySQL FULLTEXT, natural language', search.mysqlFulltext), ''],
      ],
    });

    log('soft delete');
    const softDelete = await benchSoftDelete(context, api.url, {
      concurrency: CONCURRENCY,
      amount: quick ? 500 : 2_000,
    });
    await api.process.stop();
    measured({
      title: 'Soft delete through the API',
      header: ['system', 'req/s', 'p50 ms', 'p99 ms', 'requests', 'errors'],
      rows: [row('DELETE /api/videos/{id}?retentionDays=30', softDelete)],
    });

    log('purge');
    const purge = await benchPurge(config, context, {
      videos: quick ? 300 : 600,
      rounds: ROUNDS.purge,
      concurrency: 8,
    });
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

    log('reindex');
    const reindex = await benchReindex({ rounds: ROUNDS.reindex });
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

    let scale: ScaleBench | undefined;
    if (!quick) {
      log(`scale: ${SCALE} videos`);
      scale = await benchScale(config, context, SCALE, CONCURRENCY);
      measured({
        title: `Scale: ${scale.videos} videos`,
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
          [
            'search p50 / p99 through the API',
            `${ms(scale.search.p50)} / ${ms(scale.search.p99)} ms at ${rate(scale.search.perSecond)} req/s`,
          ],
        ],
      });
    }

    const targets: Target[] = [
      {
        name: 'search p50, API / Elasticsearch',
        value: search.api.p50 / search.elasticsearch.p50,
        goal: '≤ 1.2',
        met: search.api.p50 <= 1.2 * search.elasticsearch.p50,
      },
      {
        name: 'search throughput, API / Elasticsearch',
        value: search.api.perSecond / search.elasticsearch.perSecond,
        goal: '≥ 0.8',
        met: search.api.perSecond >= 0.8 * search.elasticsearch.perSecond,
      },
      {
        name: 'purge rate, worker / raw script',
        value: purge.worker.perSecond / purge.raw.perSecond,
        goal: '≥ 0.7',
        met: purge.worker.perSecond >= 0.7 * purge.raw.perSecond,
      },
      {
        name: 'reindex rate, service / raw bulk',
        value: reindex.service.perSecond / reindex.raw.perSecond,
        goal: '≥ 0.8',
        met: reindex.service.perSecond >= 0.8 * reindex.raw.perSecond,
      },
    ];
    if (scale) {
      const peak =
        Math.max(scale.import.peakRssBytes, scale.reindex.peakRssBytes, scale.workerPeakRssBytes) / MB;
      targets.push({
        name: `peak RSS MB, worker and CLI at ${scale.videos} videos`,
        value: peak,
        goal: '< 512',
        met: peak < 512,
      });
    }

    const report: Report = {
      date: new Date().toISOString(),
      mode: quick ? 'quick' : 'full',
      machine: await machine(config.ELASTICSEARCH_URL),
      targets,
      figures: { search, softDelete, purge, reindex, scale },
      tables,
    };
    writeReport(report, PATHS.docs);
    console.log(
      `\n${report.targets.map((t) => `${t.met ? 'met ' : 'MISS'}  ${t.name}: ${t.value.toFixed(2)} (${t.goal})`).join('\n')}`,
    );
    log('written docs/benchmarks.md, docs/benchmarks.json');
    writeChart(report, PATHS.docs);
    log('written docs/benchmarks.svg');
  } finally {
    await context.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
