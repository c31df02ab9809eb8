/** How the bench writes its figures and targets: the same rounding and names in every table. */
import type { CpuSeconds, MeasuredRun } from './cpu';
import type { Target } from './report';
import type { RunStats } from './stats';
import type { Settled } from './warm-up';

export const ms = (v: number) => v.toFixed(1);
export const rate = (v: number) => v.toFixed(0);
export const count = (v: number) => v.toLocaleString('en-US');
export const MB = 2 ** 20;
/** Bytes in whole MB (2^20 bytes). */
export const megabytes = (bytes: number) => (bytes / MB).toFixed(0);

/** CPU ms one part used per unit of work. */
export const cpuMsPer = (cpu: CpuSeconds, units: number, part: string) => ((cpu[part] ?? 0) * 1000) / units;

/**
 * CPU ms per unit of work for each part; Elasticsearch's JIT compiler share in brackets; `null`: a
 * part the side has not (–).
 */
export const cpuPer = (cpu: CpuSeconds, units: number, parts: (string | null)[]) => {
  const perUnit = (part: string) => cpuMsPer(cpu, units, part).toFixed(2);
  return parts
    .map((part) =>
      part === null
        ? '–'
        : part === 'elasticsearch'
          ? `${perUnit(part)} (${perUnit('elasticsearch-jit')})`
          : perUnit(part),
    )
    .join(' / ');
};

/** A warm-up of alternating rounds (`warmAlternating`), as a comparison's title tells it. */
export const warmedUp = ({ rounds, seconds, jitShare }: Settled) =>
  `after a warm-up of ${rounds} rounds each, ${seconds.toFixed(0)} s, that ended with Elasticsearch's JIT compiler at ${(jitShare * 100).toFixed(1)} % of its CPU`;

/** The columns of a table of `row`s, and what its CPU column holds. */
export const loadHeader = (cpu: string) => ['system', 'req/s', 'p50 ms', 'p99 ms', 'requests', 'errors', cpu];
export const row = (name: string, s: RunStats) => [
  name,
  rate(s.perSecond),
  ms(s.p50),
  ms(s.p99),
  s.requests,
  s.errors,
];

/** Searches through the API, with the CPU per search of the API, Elasticsearch and MySQL. */
export const apiSearchHeader = loadHeader('CPU ms per search: API / ES (of it JIT compiler) / MySQL');
export const apiSearchRow = (name: string, run: MeasuredRun) => [
  ...row(name, run),
  cpuPer(run.cpu, run.requests, ['api', 'elasticsearch', 'mysql']),
];

/** Targets: a ratio is named "what, product / baseline"; any other value is an absolute figure. */
export const atLeast = (name: string, value: number, bound: number): Target => ({
  name,
  value,
  goal: `≥ ${bound}`,
  met: value >= bound,
});
export const atMost = (name: string, value: number, bound: number): Target => ({
  name,
  value,
  goal: `≤ ${bound}`,
  met: value <= bound,
});
export const under = (name: string, value: number, bound: number): Target => ({
  name,
  value,
  goal: `< ${bound}`,
  met: value < bound,
});
