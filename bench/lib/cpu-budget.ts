import type { CpuSeconds } from './cpu';
import { cpuMsPer } from './figures';

/** The processes a search comparison counts: the API or a floor, the engine, MySQL, Redis, the load generator. */
export const CPU_PARTS = ['api', 'floor', 'framework', 'elasticsearch', 'mysql', 'redis', 'bench'] as const;

/** One side's requests and the CPU every process spent on them. */
export interface CpuRun {
  requests: number;
  cpu: CpuSeconds;
}

/** CPU ms per request of `part`. */
export const msPer = (run: CpuRun, part: string): number =>
  cpuMsPer(run.cpu, Math.max(run.requests, 1), part);

/** CPU ms per request of every process on the machine, summed. */
export const machineMs = (run: CpuRun): number => CPU_PARTS.reduce((sum, part) => sum + msPer(run, part), 0);

export interface CpuBudget {
  /**
   * CPU ms per search, every process: the plain query, through the floor proxy, through the
   * frameworks' floor, through the API.
   */
  plain: number;
  floor: number;
  framework: number;
  api: number;
  /** The throughput ratio API / plain that the CPU per search predicts on a machine kept busy. */
  predicted: number;
  /** What the API adds to the plain query's CPU per search, process by process. */
  added: { engine: number; api: number; stores: number; loadGenerator: number };
  /** What the API may add at the goal: `plain / goal − plain`. */
  budget: number;
  /** What the floor's hop adds beside the engine: the proxy, and the load generator's extra. */
  hop: number;
  /** The best ratio an API could reach that cost the floor's hop and sent this API's query. */
  best: number;
  /** What the same hop adds through the API's frameworks (Nest, Fastify, the Elasticsearch client). */
  frameworkHop: number;
  /** The best ratio an API on those frameworks could reach that did nothing else and sent this API's query. */
  frameworkBest: number;
}

/**
 * Eight connections keep both cores busy on every side, so a side's throughput is the machine's CPU
 * over its CPU per request, and the ratio API / plain is `plain / api` in CPU per search. At `goal`
 * the API may add `plain / goal − plain`; an API as cheap as the bare forwarding proxy whose query
 * costs the engine what this API's does adds the floor's hop and the engine's extra, and no less.
 */
export function cpuBudget(
  sides: { plain: CpuRun; floor: CpuRun; framework: CpuRun; api: CpuRun },
  goal: number,
): CpuBudget {
  const { plain, floor, framework, api } = sides;
  const plainMs = machineMs(plain);
  const apiMs = machineMs(api);
  const extra = (run: CpuRun, ...parts: string[]) =>
    parts.reduce((sum, part) => sum + msPer(run, part) - msPer(plain, part), 0);
  const engine = extra(api, 'elasticsearch');
  /** What a floor adds beside the engine: its own process, and the load generator's extra. */
  const hopOf = (run: CpuRun) => machineMs(run) - plainMs - extra(run, 'elasticsearch');
  const hop = hopOf(floor);
  const frameworkHop = hopOf(framework);
  return {
    plain: plainMs,
    floor: machineMs(floor),
    framework: machineMs(framework),
    api: apiMs,
    predicted: plainMs / apiMs,
    added: {
      engine,
      api: extra(api, 'api'),
      stores: extra(api, 'mysql', 'redis'),
      loadGenerator: extra(api, 'bench'),
    },
    budget: plainMs / goal - plainMs,
    hop,
    best: plainMs / (plainMs + hop + engine),
    frameworkHop,
    frameworkBest: plainMs / (plainMs + frameworkHop + engine),
  };
}
