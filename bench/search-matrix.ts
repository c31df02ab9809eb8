/**
 * The search matrix's steps (`scale`, and `search`, its probe) with their tables and targets: each
 * comparison's full figures, one summary row per catalogue size and index state, the imports'
 * figures per size, and the targets on the API / plain `multi_match` ratios, named so that the
 * size and the state show.
 */
import { SAMPLE_VIDEOS } from './lib/bench-data';
import type { MeasuredRun } from './lib/cpu';
import {
  atLeast,
  atMost,
  count,
  cpuPer,
  loadHeader,
  MB,
  megabytes,
  ms,
  rate,
  row,
  under,
} from './lib/figures';
import { cpuBudget, CPU_PARTS, msPer } from './lib/cpu-budget';
import type { Table, Target } from './lib/report';
import type { Bench, Step } from './lib/step';
import { benchScale, type IndexPhase, type ScaleBench } from './scale.bench';
import { benchSearch, type SearchBench } from './search.bench';
import type { ChurnFigures } from './lib/churn';

/** The compared sides: each one's row, and its name in the churn's rows (the churn runs without suggestions). */
const SIDES = [
  ['api', 'API (auth, validation, Elasticsearch, what MySQL holds through copies)', 'API'],
  ['plain', 'Elasticsearch direct, plain multi_match (title^3, description)', 'plain multi_match'],
  ['elasticsearch', "Elasticsearch direct, the API's own body", "API's body direct"],
  ['floor', 'plain multi_match through a bare forwarding proxy (the floor)', 'floor proxy'],
  [
    'framework',
    "plain multi_match through Nest, Fastify and the Elasticsearch client (the frameworks' floor)",
    "frameworks' floor",
  ],
  ['suggest', 'API suggestions (the same queries cut as typed)', 'suggestions'],
] as const;

/**
 * The API's own work per search, in ms of CPU: its Node process, MySQL (the hits it holds no copy
 * of) and Redis (the change feed, the point-in-time leases).
 */
function apiOwnCpu(run: MeasuredRun): { node: number; mysql: number; redis: number; total: number } {
  const own = { node: msPer(run, 'api'), mysql: msPer(run, 'mysql'), redis: msPer(run, 'redis') };
  return { ...own, total: own.node + own.mysql + own.redis };
}

const segments = ({ index: { before, after } }: SearchBench) =>
  before.segments === after.segments ? `${before.segments}` : `${before.segments} → ${after.segments}`;

const label = (search: SearchBench, phase: string) => `at ${count(search.videos)} videos, ${phase}`;

/** One comparison's full figures, as it ends. */
function searchTable(search: SearchBench, phase: string): Table {
  const { index, warmUp, churn } = search;
  const churnRow = (name: string, rate: string, figures: ChurnFigures) => [
    name,
    rate,
    ms(figures.p50),
    ms(figures.p99),
    figures.deletes + figures.restores,
    figures.errors,
    figures.failures.join(', '),
  ];
  const churnRows = churn
    ? [
        ...SIDES.flatMap(([side, , name]) => {
          const figures = churn.sides[side];
          if (!figures) return [];
          const perSecond = rate((figures.deletes + figures.restores) / search[side]!.seconds);
          const during = `churn during the ${name} rounds (soft delete, restore a second later; not searches)`;
          return [churnRow(during, perSecond, figures)];
        }),
        churnRow('churn, whole run (warm-up included)', '', churn.total),
      ]
    : [];
  return {
    title:
      `Search ${label(search, phase)} (${search.concurrency} connections, ${search.queries} known-item queries from the sample, ` +
      `${search.seconds} s per side in ${search.rounds} alternating rounds, a b c c b a…, after a warm-up of ${warmUp.seconds.toFixed(0)} s ` +
      `that ended with Elasticsearch's JIT compiler at ${(warmUp.jitShare * 100).toFixed(1)} % of its CPU; ` +
      `index: ${segments(search)} segments, ${count(index.before.deletedDocs)} deleted documents` +
      (churn
        ? `; ${churn.rate.perSecond} soft deletes and as many restores a second through the API all through, ` +
          `whose CPU counts in every side's)`
        : ')'),
    header: loadHeader(
      "CPU ms per request: API / floor proxy / frameworks' floor / ES (of it JIT compiler) / MySQL / Redis / load generator",
    ),
    rows: [
      ...SIDES.flatMap(([side, name]) => {
        const run = search[side];
        return run ? [[...row(name, run), cpuPer(run.cpu, run.requests, [...CPU_PARTS])]] : [];
      }),
      ...churnRows,
    ],
  };
}

/**
 * The targets of one comparison: API / plain `multi_match` in throughput, p50 and p99; with
 * nothing else running, the API's own CPU per search too (under churn it would count the
 * churn's).
 */
function searchTargets(search: SearchBench, phase: string): Target[] {
  const { api, plain } = search;
  const at = label(search, phase);
  const own = apiOwnCpu(api);
  return [
    atLeast(`search throughput ${at}: API / plain multi_match`, api.perSecond / plain.perSecond, 0.85),
    atMost(`search p50 ${at}: API / plain multi_match`, api.p50 / plain.p50, 1.2),
    atMost(`search p99 ${at}: API / plain multi_match`, api.p99 / plain.p99, 1.3),
    ...(search.churn
      ? []
      : [atMost(`API's own CPU per search (Node + MySQL + Redis), ms, ${at}`, own.total, 0.6)]),
  ];
}

/** Suggestions answer within the search's latency, at any catalogue size. */
function suggestTarget(search: SearchBench, phase: string): Target[] {
  return search.suggest
    ? [
        atMost(
          `suggest p50 / search p50 ${label(search, phase)}, both through the API`,
          search.suggest.p50 / search.api.p50,
          1,
        ),
      ]
    : [];
}

/** One row per size and index state: the ratios the targets are on, and what explains them. */
function matrixTable(runs: ScaleBench[]): Table {
  const line = (run: ScaleBench, phase: 'live' | 'fresh') => {
    const search = run[phase];
    const { api, plain, elasticsearch } = search;
    const own = apiOwnCpu(api);
    const node = [msPer(search.floor, 'floor'), msPer(search.framework, 'framework'), own.node];
    return [
      count(run.videos),
      phase,
      segments(search),
      (api.perSecond / plain.perSecond).toFixed(2),
      (api.p50 / plain.p50).toFixed(2),
      (api.p99 / plain.p99).toFixed(2),
      (api.p50 / elasticsearch.p50).toFixed(2),
      `${own.node.toFixed(2)} / ${own.mysql.toFixed(2)} / ${own.redis.toFixed(2)} (${own.total.toFixed(2)})`,
      (api.perSecond / search.floor.perSecond).toFixed(2),
      node.map((value) => value.toFixed(2)).join(' / '),
      (api.perSecond / search.framework.perSecond).toFixed(2),
      search.churn ? search.churn.total.errors : '',
    ];
  };
  return {
    title:
      'Search matrix: the API against a plain multi_match at each catalogue size and index state ' +
      '(targets: throughput ≥ 0.85, p50 ≤ 1.2, p99 ≤ 1.3; the API’s own CPU per search ≤ 0.6 ms when fresh). ' +
      'Live: the index as the import left it, while videos are soft deleted and restored through the API ' +
      '(its CPU counts in the API’s). Fresh: after `cli reindex` (which merges it), nothing else running.',
    header: [
      'videos',
      'index',
      'segments',
      'throughput API / plain',
      'p50 API / plain',
      'p99 API / plain',
      "p50 API / API's body direct",
      "API's own CPU ms per search: Node / MySQL / Redis (sum)",
      'throughput API / floor proxy',
      "Node ms per search: floor proxy / frameworks' floor / API",
      "throughput API / frameworks' floor",
      'churn errors',
    ],
    rows: runs.flatMap((run) => [line(run, 'live'), line(run, 'fresh')]),
  };
}

/** The throughput target, API / plain `multi_match`. */
const THROUGHPUT_GOAL = 0.85;

/**
 * Each comparison's CPU per search, every process counted, and what the throughput target leaves
 * the API (`cpuBudget`): the ratio the CPU predicts beside the measured one, what the API adds
 * process by process, and the best ratio an API as cheap as the bare forwarding proxy could reach
 * with this API's query.
 */
function budgetTable(runs: { videos: number; phase: string; search: SearchBench }[]): Table {
  const f2 = (value: number) => value.toFixed(2);
  return {
    title:
      'Search: CPU ms per search of every process (API or proxy, Elasticsearch, MySQL, Redis, load generator), ' +
      `what the throughput target leaves the API (plain / ${THROUGHPUT_GOAL} − plain), and the best ratio an API ` +
      "could reach that cost only the bare forwarding proxy's hop, or only the frameworks' floor's, while sending " +
      "this API's query",
    header: [
      'videos',
      'index',
      "CPU ms per search: plain / floor / frameworks' floor / API",
      'throughput API / plain: from CPU, measured',
      'API adds: engine / API process / MySQL + Redis / load generator',
      `budget at ${THROUGHPUT_GOAL}`,
      "floor's hop + API's engine extra",
      'best ratio with this query',
      "frameworks' hop + API's engine extra",
      "best ratio on the API's frameworks",
    ],
    rows: runs.map(({ videos, phase, search }) => {
      const cpu = cpuBudget(search, THROUGHPUT_GOAL);
      const { engine, api, stores, loadGenerator } = cpu.added;
      return [
        count(videos),
        phase,
        [cpu.plain, cpu.floor, cpu.framework, cpu.api].map(f2).join(' / '),
        `${f2(cpu.predicted)}, ${f2(search.api.perSecond / search.plain.perSecond)}`,
        [engine, api, stores, loadGenerator].map(f2).join(' / '),
        f2(cpu.budget),
        `${f2(cpu.hop)} + ${f2(engine)} = ${f2(cpu.hop + engine)}`,
        f2(cpu.best),
        `${f2(cpu.frameworkHop)} + ${f2(engine)} = ${f2(cpu.frameworkHop + engine)}`,
        f2(cpu.frameworkBest),
      ];
    }),
  };
}

const imported = (run: ScaleBench['sampleImport']) =>
  `${rate(run.perSecond)} videos/s (${run.seconds.toFixed(0)} s, peak RSS ${megabytes(run.peakRssBytes)} MB)`;

/** The imports, the reindex and the reconcile at each size, through the CLI and a worker. */
function scaleTable(runs: ScaleBench[]): Table {
  return {
    title:
      'Scale: each size imported into an empty index through the CLI (rows + documents; the sample with its ' +
      'media objects, the realistic catalogue, bench/lib/catalogue.ts, without), rebuilt by `cli reindex`, and ' +
      'reconciled row by row by a worker',
    header: [
      'videos',
      'catalogue',
      'sample import',
      'catalogue import',
      'reindex',
      'worker peak RSS MB (reconcile)',
    ],
    rows: runs.map((run) => [
      count(run.videos),
      run.catalogue === 0
        ? 'none'
        : `${count(run.catalogue)} videos, ${run.generatedSeconds === undefined ? 'reused from .cache/bench' : `generated in ${run.generatedSeconds.toFixed(0)} s`}`,
      imported(run.sampleImport),
      run.catalogueImport ? imported(run.catalogueImport) : '',
      `${rate(run.reindex.perSecond)} docs/s (${run.reindex.seconds.toFixed(0)} s, peak RSS ${megabytes(run.reindex.peakRssBytes)} MB)`,
      `${megabytes(run.workerPeakRssBytes)} (${run.reconcileSeconds.toFixed(0)} s)`,
    ]),
  };
}

/** One search comparison on the index as it is, on an API started for it alone (`name`: its profiles' files). */
const compareSearch = (bench: Bench, churn: boolean, name: string): Promise<SearchBench> =>
  bench.withApi(name, 'search', (apiUrl, profileApi) =>
    benchSearch(bench.config, bench.context, apiUrl, bench.search, { churn, profileApi }),
  );

/** `--churn`: the live comparison's sides, beside the churn; else the fresh one's. */
const phase = (churn: boolean) => (churn ? 'with churn' : 'quiet');

export const searchStep: Step<{ search: SearchBench }> = {
  name: 'search',
  measures: 'GET /api/videos/search through the API on whatever the index holds, with the churn if --churn',
  baseline:
    "a plain multi_match straight to Elasticsearch; the API's own body, the floors, suggestions beside it",
  data: 'index',
  probe: true,
  leads: true,
  async run(bench) {
    return { search: await compareSearch(bench, bench.churn, bench.churn ? 'churn' : 'quiet') };
  },
  report({ search }, { churn }) {
    return {
      tables: [
        searchTable(search, phase(churn)),
        budgetTable([{ videos: search.videos, phase: phase(churn), search }]),
      ],
      targets: [...searchTargets(search, phase(churn)), ...suggestTarget(search, phase(churn))],
    };
  },
};

export const scaleStep: Step<{ scale: ScaleBench[] }> = {
  name: 'scale',
  measures:
    'at each --sizes: the CLI import into an empty index, search live (under churn) and fresh (after cli reindex), a reconcile; peak RSS',
  baseline: 'a plain multi_match straight to Elasticsearch, the floors beside it',
  data: 'own',
  leads: true,
  async run(bench) {
    const runs: ScaleBench[] = [];
    for (const size of bench.sizes) {
      const videos = SAMPLE_VIDEOS + size;
      bench.log(`scale: the sample and ${count(size)} videos of the realistic catalogue`);
      const run = await benchScale(bench.context, size, async (phase) => {
        bench.log(`search at ${count(videos)} videos, ${phase}`);
        const search = await compareSearch(bench, phase === 'live', `${videos}-${phase}`);
        bench.print(searchTable(search, phase));
        return search;
      });
      runs.push(run);
      bench.print(scaleTable([run]));
    }
    return { scale: runs };
  },
  report({ scale: runs }) {
    const comparisons = runs.flatMap((run) =>
      (['live', 'fresh'] as const).map((phase: IndexPhase) => ({
        videos: run.videos,
        phase,
        search: run[phase],
      })),
    );
    const largest = runs.at(-1)!;
    const peak =
      Math.max(
        largest.sampleImport.peakRssBytes,
        largest.catalogueImport?.peakRssBytes ?? 0,
        largest.reindex.peakRssBytes,
        largest.workerPeakRssBytes,
      ) / MB;
    return {
      // The matrix's summary first, before each comparison's figures.
      tables: [
        matrixTable(runs),
        budgetTable(comparisons),
        scaleTable(runs),
        ...comparisons.map(({ phase, search }) => searchTable(search, phase)),
      ],
      targets: [
        ...comparisons.flatMap(({ phase, search }) => searchTargets(search, phase)),
        ...suggestTarget(largest.fresh, 'fresh'),
        under(`peak RSS MB (/usr/bin/time), worker and CLI at ${largest.videos} videos`, peak, 400),
      ],
    };
  },
};
