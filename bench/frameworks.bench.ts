import type { AppConfig } from '@app/shared/config/config.schema';
import type { MeasuredRun } from './lib/cpu';
import { msPer } from './lib/cpu-budget';
import { count, cpuPer, loadHeader, row } from './lib/figures';
import { floorPath, PATHS, startSearchFloor, type RunningProcess, type SearchFloor } from './lib/kit';
import { alternatingLoads, warmUp, type HttpLoad, type WarmUp } from './lib/load';
import { sampleQueryMix } from './lib/queries';
import type { Table } from './lib/report';

/** The rungs, from the bare proxy up to the frameworks' floor, as the table names them. */
export const RUNGS = {
  bare: 'node:http both ways, the answer piped (the bare proxy)',
  json: 'node:http both ways, the answer parsed and serialised',
  client: 'node:http in, the Elasticsearch client out',
  fastify: 'Fastify in, the Elasticsearch client out',
  nest: "Nest on Fastify in, the Elasticsearch client out (the frameworks' floor)",
} as const satisfies Record<SearchFloor, string>;
export type Rung = keyof typeof RUNGS;

export interface FrameworksBench {
  /** Active videos in the index searched. */
  videos: number;
  concurrency: number;
  seconds: number;
  rounds: number;
  warmUp: WarmUp;
  rungs: Record<Rung, MeasuredRun>;
}

/**
 * The frameworks' floor taken apart: the same plain query forwarded through one more layer at each
 * rung, from the bare proxy to Nest on Fastify with the Elasticsearch client, in alternating rounds
 * on the index as it stands. What each layer adds to the Node process's CPU per search is what an
 * API built on it pays before doing anything of its own (docs/performance.md).
 */
export async function benchFrameworks(
  config: AppConfig,
  {
    videos,
    concurrency,
    seconds,
    rounds,
    warmUpSeconds,
  }: {
    videos: number;
    concurrency: number;
    seconds: number;
    rounds: number;
    warmUpSeconds: { min: number; max: number };
  },
): Promise<FrameworksBench> {
  const queries = await sampleQueryMix(PATHS.sample);
  const started: RunningProcess[] = [];
  try {
    const loads = {} as Record<Rung, Omit<HttpLoad, 'durationSeconds'>>;
    for (const rung of Object.keys(RUNGS) as Rung[]) {
      const floor = await startSearchFloor(rung, config.ELASTICSEARCH_URL, config.ELASTICSEARCH_INDEX);
      started.push(floor.process);
      loads[rung] = {
        url: floor.url,
        request: (i: number) => ({ path: floorPath(queries[i % queries.length]!) }),
        concurrency,
      };
    }
    const warmed = await warmUp(loads, {
      roundSeconds: Math.min(10, warmUpSeconds.min / 2),
      minSeconds: warmUpSeconds.min,
      maxSeconds: warmUpSeconds.max,
      settledJitShare: 0.01,
    });
    const rungs = await alternatingLoads(loads, { rounds, seconds: seconds / rounds });
    return { videos, concurrency, seconds, rounds, warmUp: warmed, rungs };
  } finally {
    await Promise.all(started.map((floor) => floor.stop()));
  }
}

/** The Node process's CPU ms per search at a rung: the bare proxy counts as `floor`, the others as `framework`. */
const nodeMs = (ladder: FrameworksBench, rung: Rung) =>
  msPer(ladder.rungs[rung], rung === 'bare' ? 'floor' : 'framework');

/** Each rung's figures, and what its layer adds to the Node process's CPU per search. */
export function frameworksTable(ladder: FrameworksBench): Table {
  const rungs = Object.keys(RUNGS) as Rung[];
  return {
    title:
      `The frameworks' floor, layer by layer, at ${count(ladder.videos)} videos: the plain multi_match forwarded at each rung (${ladder.concurrency} connections, ` +
      `${ladder.seconds} s per rung in ${ladder.rounds} alternating rounds, after a warm-up of ${ladder.warmUp.seconds.toFixed(0)} s)`,
    header: [
      ...loadHeader('CPU ms per search: floor proxy / frameworks’ floor / ES / load generator'),
      'Node ms per search added by this layer',
    ],
    rows: rungs.map((rung, i) => {
      const run = ladder.rungs[rung];
      return [
        ...row(RUNGS[rung], run),
        cpuPer(run.cpu, run.requests, ['floor', 'framework', 'elasticsearch', 'bench']),
        i === 0 ? '' : (nodeMs(ladder, rung) - nodeMs(ladder, rungs[i - 1]!)).toFixed(2),
      ];
    }),
  };
}
