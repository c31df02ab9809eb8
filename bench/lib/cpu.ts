import { readdirSync, readFileSync } from 'node:fs';
import { ENTRY, PATHS } from './kit';
import { mergeRuns, type RunStats, type TimedRun } from './stats';

/**
 * CPU seconds used so far by each part of the system, summed over its processes (Linux /proc).
 * `elasticsearch-jit` is the part of `elasticsearch` spent in the JVM's JIT compiler threads.
 */
export type CpuSeconds = Record<string, number>;

const literally = (...paths: string[]) =>
  new RegExp(paths.map((path) => path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'));

/**
 * The Node processes are this checkout's own builds: on a shared machine other checkouts run APIs,
 * workers and CLIs of their own, which are not the bench's to count.
 */
const PARTS: [string, RegExp][] = [
  ['mysql', /mariadbd|mysqld/],
  ['redis', /redis-server/],
  ['elasticsearch', /org\.elasticsearch/],
  ['s3proxy', /s3proxy/],
  ['worker', literally(ENTRY.worker)],
  ['api', literally(ENTRY.api)],
  ['cli', literally(ENTRY.cli, PATHS.rawBulk)],
  ['floor', literally(PATHS.floorProxy, PATHS.floorDelete)],
  ['framework', literally(PATHS.floorFramework)],
  ['sink', literally(PATHS.otlpSink)],
];

/**
 * Processes counted under a part of their own, ahead of PARTS: two APIs compared side by side
 * run the same command line, and each side's CPU is its own API's.
 */
const NAMED = new Map<number, string>();

/** Counts the process `pid` (which `execve` keeps across the heap rule's restart) as `part`. */
export function countAs(pid: number, part: string): void {
  NAMED.set(pid, part);
}

/** The Elasticsearch node the bench talks to, once known; until then every node counts. */
let elasticsearchPid: number | undefined;

/**
 * Counts only the Elasticsearch node that answers at `url` (it names its own process id): other
 * nodes on the machine, such as a test cluster started and stopped beside the bench, would add
 * their CPU to the bench's figures, and take it away again when they exit (negative shares).
 */
export async function watchElasticsearch(url: string): Promise<void> {
  const response = await fetch(`${url}/_nodes/_local/process?filter_path=nodes.*.process.id`);
  const { nodes } = (await response.json()) as { nodes: Record<string, { process: { id: number } }> };
  elasticsearchPid = Object.values(nodes)[0]?.process.id;
}

const TICKS_PER_SECOND = 100;

/** utime + stime of a `/proc/.../stat` line, in seconds. */
function statSeconds(stat: string): number {
  // Fields after the command name: utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** HotSpot names its JIT compiler threads `C1 CompilerThread0`, `C2 CompilerThread1`… */
const JIT_THREAD = /^C[12] CompilerThre/;

/** CPU seconds a JVM's threads spent compiling so far. */
function jitSeconds(pid: string): number {
  let total = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      if (JIT_THREAD.test(readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8'))) {
        total += statSeconds(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'));
      }
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return total;
}

function cpuSeconds(): CpuSeconds {
  const totals: CpuSeconds = {};
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const part =
        Number(pid) === process.pid
          ? 'bench'
          : (NAMED.get(Number(pid)) ??
            PARTS.find(([, pattern]) =>
              pattern.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ')),
            )?.[0]);
      if (
        !part ||
        (part === 'elasticsearch' && elasticsearchPid !== undefined && Number(pid) !== elasticsearchPid)
      )
        continue;
      totals[part] = (totals[part] ?? 0) + statSeconds(readFileSync(`/proc/${pid}/stat`, 'utf8'));
      if (part === 'elasticsearch') {
        totals['elasticsearch-jit'] = (totals['elasticsearch-jit'] ?? 0) + jitSeconds(pid);
      }
    } catch {
      // The process exited between the listing and the read.
    }
  }
  return totals;
}

/**
 * Runs `work` and answers what it answers with the CPU seconds each part used meanwhile. A process
 * that exits before `work` ends is lost: stop the processes being measured after it.
 */
export async function withCpu<T extends object>(work: () => Promise<T>): Promise<T & { cpu: CpuSeconds }> {
  const before = cpuSeconds();
  const result = await work();
  const after = cpuSeconds();
  const cpu: CpuSeconds = {};
  for (const part of Object.keys(after).sort())
    cpu[part] = Math.round((after[part]! - (before[part] ?? 0)) * 100) / 100;
  return { ...result, cpu };
}

/** The CPU of several runs added up, part by part (rounded to 10 ms, as `/proc` counts). */
export function totalCpu(runs: readonly { cpu: CpuSeconds }[]): CpuSeconds {
  const total: CpuSeconds = {};
  for (const { cpu } of runs)
    for (const [part, seconds] of Object.entries(cpu))
      total[part] = Math.round(((total[part] ?? 0) + seconds) * 100) / 100;
  return total;
}

/** A side's measured rounds: each call's latency and the CPU each part used. */
export type MeasuredRun = RunStats & { cpu: CpuSeconds };

/** Rounds of one side as one run (`mergeRuns`), with the CPU of every round added up. */
export function mergeMeasured(runs: (TimedRun & { cpu: CpuSeconds })[]): MeasuredRun {
  return { ...mergeRuns(runs), cpu: totalCpu(runs) };
}
