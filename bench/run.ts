/**
 * `npm run bench`: every hot path against its baseline in the same run, on the local services,
 * reported as ratios (docs/performance.md). The steps are the table below, run in its order; each
 * prints its tables as it ends. Then the report: docs/benchmarks.md and docs/benchmarks.json, and
 * only then docs/benchmarks.svg. `--only <steps>` writes it to .cache/bench instead, so that a
 * partial run never replaces the published one. `--help` lists the options and the steps.
 */
import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { resetToSample, SAMPLE_VIDEOS } from './lib/bench-data';
import { writeChart } from './lib/chart';
import { watchElasticsearch } from './lib/cpu';
import { applyBenchEnv, openBenchContext, PATHS } from './lib/kit';
import {
  machine,
  printTable,
  readReport,
  writeReport,
  type Report,
  type Table,
  type Target,
} from './lib/report';
import { parseSizes, searchLoad, type Bench, type Step } from './lib/step';
import { deleteStep } from './delete.bench';
import { expungeStep } from './expunge.bench';
import { frameworksStep } from './frameworks.bench';
import { migrationStep } from './identity-migration.bench';
import { mediaCleanupStep } from './media-cleanup.bench';
import { metricsScrapeStep } from './metrics-scrape.bench';
import { outboxSweepStep } from './outbox-sweep.bench';
import { outboxStep } from './outbox.bench';
import { apiComparisons } from './profile-table';
import { purgeStep } from './purge.bench';
import { reindexStep } from './reindex.bench';
import { scaleStep, searchStep } from './search-matrix';
import { tracingStep } from './tracing.bench';

/** The steps, in the order a run takes them. */
const STEPS: readonly Step[] = [
  deleteStep,
  purgeStep,
  mediaCleanupStep,
  reindexStep,
  scaleStep,
  searchStep,
  frameworksStep,
  metricsScrapeStep,
  expungeStep,
  tracingStep,
  migrationStep,
  outboxStep,
  outboxSweepStep,
];

const USAGE = `npm run bench -- [options]
  --quick          shorter rounds; search at the sample and the sample with 20,000 videos
  --only <steps>   some of the steps, comma-separated, in their usual order; the report goes to .cache/bench
  --sizes <list>   videos of the realistic catalogue on top of the sample (or BENCH_SIZES; 0,200000,1000000)
  --churn          the search probe beside a churn of soft deletes and restores through the API
  --profile        the API's and the worker's CPU profiled part by part (a probe: sampling costs CPU)
  --chart          only redraws docs/benchmarks.svg from docs/benchmarks.json
Steps (probes run only when --only names them):`;

const { values: options } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    chart: { type: 'boolean', default: false },
    only: { type: 'string' },
    sizes: { type: 'string' },
    churn: { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
const only = options.only?.split(',').map((name) => name.trim());
const unknown = only?.filter((name) => !STEPS.some((step) => step.name === name)) ?? [];
if (unknown.length > 0) {
  console.error(`--only: unknown step ${unknown.join(', ')} (steps: ${STEPS.map((s) => s.name).join(', ')})`);
  process.exit(2);
}
const steps = STEPS.filter((step) => (only ? only.includes(step.name) : !step.probe));
const sizes = parseSizes(
  options.sizes ?? process.env.BENCH_SIZES ?? (options.quick ? '0,20000' : '0,200000,1000000'),
);
/** Where the report goes: a partial run must not replace the published one. */
const reportDir = only ? PATHS.cache : PATHS.docs;

async function main(): Promise<void> {
  if (options.help) {
    const line = (s: Step) =>
      `  ${s.name}${s.probe ? ' (probe)' : ''}: ${s.measures}\n      against ${s.baseline}`;
    console.log(`${USAGE}\n${STEPS.map(line).join('\n')}`);
    return;
  }
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
  const printed = new Set<string>();
  let probes: Table[] = [];
  const bench: Bench = {
    config,
    context,
    quick: options.quick,
    churn: options.churn,
    profile: options.profile,
    sizes,
    search: searchLoad(options.quick),
    log,
    print(table) {
      printed.add(table.title);
      printTable(table);
    },
    probe(table) {
      probes.push(table);
      printTable(table);
    },
    withApi: apiComparisons(options.profile, (table) => bench.probe(table)),
  };
  const tables: Table[] = [];
  const leading: Target[] = [];
  const targets: Target[] = [];
  const figures: Record<string, unknown> = {};
  try {
    // Run on the sample unless what the index holds will do.
    const videos = await context.videos.count();
    const needsSample = (step: Step) => step.data === 'sample' || (step.data === 'index' && videos === 0);
    if (videos !== SAMPLE_VIDEOS && steps.some(needsSample)) {
      log('resetting the bench database to the sample');
      await resetToSample(context);
    }
    for (const step of steps) {
      log(`${step.name}: ${step.measures}`);
      probes = [];
      const measured = await step.run(bench);
      Object.assign(figures, measured);
      const report = step.report(measured, bench);
      for (const table of report.tables) if (!printed.has(table.title)) printTable(table);
      tables.push(...report.tables, ...probes);
      (step.leads ? leading : targets).push(...report.targets);
    }
  } finally {
    await context.close();
  }
  const report: Report = {
    date: new Date().toISOString(),
    mode: only ? 'partial' : options.quick ? 'quick' : 'full',
    command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
    machine: await machine(config.ELASTICSEARCH_URL),
    targets: [...leading, ...targets],
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
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
