/**
 * A step of `npm run bench` (bench/run.ts): one comparison of a hot path with its baseline, as one
 * entry of the runner's table. The runner gives every step the same `Bench`, runs the steps in the
 * table's order, keeps each step's figures under their keys in benchmarks.json and writes its tables
 * and targets into benchmarks.md.
 */
import type { AppConfig } from '@app/shared/config/config.schema';
import type { MeasuredRun } from './cpu';
import type { BenchContext } from './kit';
import type { Alongside } from './load';
import type { Table, Target } from './report';
import type { WarmUpLimits } from './warm-up';

export interface Step<F extends object = object> {
  /** Its name on the command line (`--only`). */
  name: string;
  /** What it measures, and against what: a line each (docs/performance.md tells the rest). */
  measures: string;
  baseline: string;
  /**
   * What it runs on: exactly the sample (`sample`), whatever the index holds, the sample when it
   * holds nothing (`index`), or data it makes itself (`own`).
   */
  data: 'sample' | 'index' | 'own';
  /** A probe: run only when `--only` names it. */
  probe?: boolean;
  /** Its targets open the report: the search targets, what the benchmarks are about. */
  leads?: boolean;
  /** Measures; answers its figures by their keys in benchmarks.json. */
  run(bench: Bench): Promise<F>;
  /** Its figures as the report's tables and targets. */
  report(figures: F, bench: Bench): { tables: Table[]; targets: Target[] };
}

/** What a step runs with: the bench's services and the run's options. */
export interface Bench {
  config: AppConfig;
  context: BenchContext;
  /** `--quick`: shorter rounds, smaller sizes. */
  quick: boolean;
  /** `--churn`: the search probe runs beside a churn of deletes and restores. */
  churn: boolean;
  /** `--sizes`: videos of the realistic catalogue on top of the sample, smallest first. */
  sizes: number[];
  /** The search load every search comparison runs. */
  search: SearchLoad;
  log: (message: string) => void;
  /** Prints a table as soon as it is measured, before the step ends (its report does not print it again). */
  print: (table: Table) => void;
  /** A probe's table (a CPU profile): printed now, reported after the step's own tables. */
  probe: (table: Table) => void;
  /** `--profile`: the product's processes are profiled in their measured rounds. */
  profile: boolean;
  /**
   * Runs `compare` on an API started for it alone; with `--profile`, the API's CPU profiled in the
   * rounds `compare` runs `profileApi` beside, and reported per `per` (search, delete).
   */
  withApi: <T extends { api: MeasuredRun }>(
    name: string,
    per: string,
    compare: (apiUrl: string, profileApi: Alongside | undefined) => Promise<T>,
  ) => Promise<T>;
}

export interface SearchLoad {
  /** Enough connections to keep both cores busy, with half the queue 16 would put before each request. */
  concurrency: number;
  /** Measured seconds per side, over all its rounds; rounds even, so that `roundOrder` balances them. */
  seconds: number;
  rounds: number;
  warmUp: WarmUpLimits;
}

export function searchLoad(quick: boolean): SearchLoad {
  return quick
    ? { concurrency: 8, seconds: 8, rounds: 2, warmUp: { minSeconds: 8, maxSeconds: 16 } }
    : { concurrency: 8, seconds: 48, rounds: 6, warmUp: { minSeconds: 24, maxSeconds: 300 } };
}

/**
 * The catalogue sizes a run measures search at, as `--sizes` gives them: videos of the realistic
 * catalogue imported on top of the sample (0: the sample alone), comma-separated, `_` allowed as a
 * thousands separator (`0,200_000,1_000_000`). Each size once, smallest first: the small ones
 * report in minutes, before the million takes its hour.
 */
export function parseSizes(text: string): number[] {
  const sizes = text.split(',').map((part) => {
    const digits = part.trim().replaceAll('_', '');
    if (!/^\d+$/.test(digits)) throw new Error(`--sizes: "${part.trim()}" is not a count of videos`);
    return Number(digits);
  });
  return [...new Set(sizes)].sort((a, b) => a - b);
}
