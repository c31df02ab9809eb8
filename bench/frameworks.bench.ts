import type { MeasuredRun } from './lib/cpu';
import { msPer } from './lib/cpu-budget';
import { count, cpuPer, loadHeader, row } from './lib/figures';
import { startSearchFloors, type SearchFloor } from './lib/kit';
import { alternatingLoads, floorSearches, warmUp, type WarmUp } from './lib/load';
import { mapSides } from './lib/order';
import type { Table } from './lib/report';
import type { Step } from './lib/step';
import { sampleQueries } from './search.bench';

/** The rungs, from the bare proxy up to the frameworks' floor, as the table names them. */
const RUNGS = {
  bare: 'node:http both ways, the answer piped (the bare proxy)',
  json: 'node:http both ways, the answer parsed and serialised',
  client: 'node:http in, the Elasticsearch client out',
  fastify: 'Fastify in, the Elasticsearch client out',
  nest: "Nest on Fastify in, the Elasticsearch client out (the frameworks' floor)",
} as const satisfies Record<SearchFloor, string>;
type Rung = keyof typeof RUNGS;
const RUNG_NAMES = Object.keys(RUNGS) as Rung[];

export interface FrameworksBench {
  /** Active videos in the index searched. */
  videos: number;
  concurrency: number;
  seconds: number;
  rounds: number;
  warmUp: WarmUp;
  rungs: Record<Rung, MeasuredRun>;
}

/** The Node process's CPU ms per search at a rung: the bare proxy counts as `floor`, the others as `framework`. */
const nodeMs = (ladder: FrameworksBench, rung: Rung) =>
  msPer(ladder.rungs[rung], rung === 'bare' ? 'floor' : 'framework');

/**
 * The frameworks' floor taken apart: the same plain query forwarded through one more layer at each
 * rung, from the bare proxy to Nest on Fastify with the Elasticsearch client, in alternating rounds
 * on the index as it stands. What each layer adds to the Node process's CPU per search is what an
 * API built on it pays before doing anything of its own (docs/performance.md).
 */
export const frameworksStep: Step<{ frameworks: FrameworksBench }> = {
  name: 'frameworks',
  measures:
    "the frameworks' floor layer by layer: the plain multi_match forwarded through one more layer at each rung",
  baseline: 'the bare forwarding proxy (bench/floor-proxy.ts), the first rung',
  data: 'index',
  probe: true,
  async run({ config, context, search: { concurrency, seconds, rounds, warmUp: warmUpLimits } }) {
    const videos = await context.videos.count();
    const queries = await sampleQueries();
    const floors = await startSearchFloors(RUNG_NAMES, config.ELASTICSEARCH_URL, config.ELASTICSEARCH_INDEX);
    try {
      const loads = mapSides(RUNGS, (_, rung) => floorSearches(floors.url[rung], queries, concurrency));
      const warmed = await warmUp(loads, warmUpLimits);
      const rungs = await alternatingLoads(loads, { rounds, seconds: seconds / rounds });
      return { frameworks: { videos, concurrency, seconds, rounds, warmUp: warmed, rungs } };
    } finally {
      await floors.stop();
    }
  },
  /** Each rung's figures, and what its layer adds to the Node process's CPU per search. */
  report({ frameworks: ladder }) {
    const table: Table = {
      title:
        `The frameworks' floor, layer by layer, at ${count(ladder.videos)} videos: the plain multi_match forwarded at each rung (${ladder.concurrency} connections, ` +
        `${ladder.seconds} s per rung in ${ladder.rounds} alternating rounds, after a warm-up of ${ladder.warmUp.seconds.toFixed(0)} s)`,
      header: [
        ...loadHeader('CPU ms per search: floor proxy / frameworks’ floor / ES / load generator'),
        'Node ms per search added by this layer',
      ],
      rows: RUNG_NAMES.map((rung, i) => {
        const run = ladder.rungs[rung];
        return [
          ...row(RUNGS[rung], run),
          cpuPer(run.cpu, run.requests, ['floor', 'framework', 'elasticsearch', 'bench']),
          i === 0 ? '' : (nodeMs(ladder, rung) - nodeMs(ladder, RUNG_NAMES[i - 1]!)).toFixed(2),
        ];
      }),
    };
    return { tables: [table], targets: [] };
  },
};
