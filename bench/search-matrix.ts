/**
 * The search matrix's tables and targets (issue 31): each comparison's full figures, one summary
 * row per catalogue size and index state, the imports' figures per size, and the targets on the
 * API / plain `multi_match` ratios, named so that the size and the state show.
 */
import type { MeasuredRun } from './lib/cpu';
import { atLeast, atMost, count, cpuPer, loadHeader, megabytes, ms, rate, row } from './lib/figures';
import { cpuBudget, CPU_PARTS, msPer } from './lib/cpu-budget';
import type { Table, Target } from './lib/report';
import type { ScaleBench } from './scale.bench';
import type { SearchBench } from './search.bench';

/** The compared sides, as the churn's rows name them. */
const SIDES = [
  ['api', 'API'],
  ['plain', 'plain multi_match'],
  ['elasticsearch', "API's body direct"],
  ['floor', 'floor proxy'],
  ['framework', "frameworks' floor"],
] as const;

/**
 * The API's own work per search, in ms of CPU: its Node process, MySQL (the hits it holds no copy
 * of) and Redis (the change feed, the point-in-time leases).
 */
function apiOwnCpu(run: MeasuredRun): { node: number; mysql: number; redis: number; total: number } {
  const own = { node: msPer(run, 'api'), mysql: msPer(run, 'mysql'), redis: msPer(run, 'redis') };
  return { ...own, total: own.node + own.mysql + own.redis };
}

const cpuPerRequest = (run: MeasuredRun) => cpuPer(run.cpu, run.requests, [...CPU_PARTS]);

const segments = ({ index: { before, after } }: SearchBench) =>
  before.segments === after.segments ? `${before.segments}` : `${before.segments} → ${after.segments}`;

const label = (search: SearchBench, phase: string) => `at ${count(search.videos)} videos, ${phase}`;

/** One comparison's full figures, as it ends. */
export function searchTable(search: SearchBench, phase: string): Table {
  const { index, warmUp, churn } = search;
  const churnRows = churn
    ? [
        ...SIDES.flatMap(([side, name]) => {
          const figures = churn.sides[side];
          if (!figures) return [];
          const requests = figures.deletes + figures.restores;
          return [
            [
              `churn during the ${name} rounds (soft delete, restore a second later; not searches)`,
              rate(requests / search[side].seconds),
              ms(figures.p50),
              ms(figures.p99),
              requests,
              figures.errors,
              figures.failures.join(', '),
            ],
          ];
        }),
        [
          'churn, whole run (warm-up included)',
          '',
          ms(churn.total.p50),
          ms(churn.total.p99),
          churn.total.deletes + churn.total.restores,
          churn.total.errors,
          churn.total.failures.join(', '),
        ],
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
      [
        ...row('API (auth, validation, Elasticsearch, what MySQL holds through copies)', search.api),
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
        ...row('plain multi_match through a bare forwarding proxy (the floor)', search.floor),
        cpuPerRequest(search.floor),
      ],
      [
        ...row(
          "plain multi_match through Nest, Fastify and the Elasticsearch client (the frameworks' floor)",
          search.framework,
        ),
        cpuPerRequest(search.framework),
      ],
      ...(search.suggest
        ? [
            [
              ...row('API suggestions (the same queries cut as typed)', search.suggest),
              cpuPerRequest(search.suggest),
            ],
          ]
        : []),
      ...churnRows,
    ],
  };
}

/**
 * The targets of one comparison: API / plain `multi_match` in throughput, p50 and p99; with
 * nothing else running, the API's own CPU per search too (under churn it would count the
 * churn's).
 */
export function searchTargets(search: SearchBench, phase: string): Target[] {
  const { api, plain } = search;
  const at = label(search, phase);
  const own = apiOwnCpu(api);
  return [
    atLeast(`search throughput ${at}: API / plain multi_match`, api.perSecond / plain.perSecond, 0.85),
    atMost(`search p50 ${at}: API / plain multi_match`, api.p50 / plain.p50, 1.2),
    atMost(`search p99 ${at}: API / plain multi_match`, api.p99 / plain.p99, 1.3),
    ...(search.churn
      ? []
      : [
          {
            name: `API's own CPU per search (Node + MySQL + Redis), ms, ${at}`,
            value: own.total,
            goal: '≤ 0.6',
            met: own.total <= 0.6,
          },
        ]),
  ];
}

/** Issue 20: suggestions answer within the search's latency, at any catalogue size. */
export function suggestTarget(search: SearchBench, phase: string): Target[] {
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
export function matrixTable(runs: ScaleBench[]): Table {
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
export function budgetTable(runs: { videos: number; phase: string; search: SearchBench }[]): Table {
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
export function scaleTable(runs: ScaleBench[]): Table {
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
