/** `--profile`: where a product process's CPU went in a comparison's measured rounds, as tables. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  inspectOption,
  profileParts,
  roundProfiler,
  type CpuProfile,
  type RoundProfiler,
} from './lib/cpu-profile';
import { msPer, type CpuRun } from './lib/cpu-budget';
import { freePort, PATHS, ROOT, startApi } from './lib/kit';
import type { Table } from './lib/report';
import type { Bench } from './lib/step';

/** A part is listed when its own code, or the code it calls, takes at least these shares. */
const LISTED = { self: 0.005, total: 0.05 };

/** The rounds' profiles as `.cpuprofile` files (Chrome DevTools opens them); their paths. */
export function writeProfiles(
  profiles: readonly CpuProfile[],
  dir: string,
  { process, name }: { process: Profiled['process']; name: string },
): string[] {
  mkdirSync(dir, { recursive: true });
  return profiles.map((profile, round) => {
    const path = join(dir, `${process}-${name}-round${round + 1}.cpuprofile`);
    writeFileSync(path, JSON.stringify(profile));
    return relative(ROOT, path);
  });
}

/** What a profile was taken of: a product process (`api`, `worker`) on its side of a comparison. */
export interface Profiled {
  /** The side's measured rounds: its CPU per part and how many requests (searches, deletes, purges). */
  run: CpuRun;
  /** The profiled process's part in `run.cpu` (`bench`: a raw script, run in the bench's own process). */
  process: 'api' | 'worker' | 'bench';
  /** What one request is: search, delete, purge. */
  per: string;
}

const PROCESS_NAMES: Record<Profiled['process'], string> = {
  api: "API's",
  worker: "worker's",
  bench: "raw script's",
};

/**
 * Where a product process's CPU went in its measured rounds, part by part: each part's share of
 * the busy samples, and that share of the process's CPU per request as the same rounds measured it
 * (under churn the churn's requests are in both).
 */
export function profileTable(
  { run, process, per }: Profiled,
  profiles: readonly CpuProfile[],
  name: string,
  files: readonly string[],
): Table {
  const { busyMs, parts } = profileParts(profiles);
  const perRequest = msPer(run, process);
  const pct = (share: number) => `${(share * 100).toFixed(1)} %`;
  const msOf = (share: number) => (share * perRequest).toFixed(3);
  return {
    title:
      `Where the ${PROCESS_NAMES[process]} CPU went, ${name}: ${profiles.length} profiled rounds, ${busyMs.toFixed(0)} ms of busy samples, ` +
      `${perRequest.toFixed(2)} ms of CPU per ${per} in those rounds (sampling included); files: ${files.join(', ')}`,
    header: ['part', 'own code', `ms per ${per}`, 'with what it calls', `ms per ${per}`],
    rows: parts
      .filter((part) => part.self >= LISTED.self || part.total >= LISTED.total)
      .map((part) => [part.part, pct(part.self), msOf(part.self), pct(part.total), msOf(part.total)]),
  };
}

/** One side of a comparison with its profiles. */
export interface ProfiledSide {
  label: string;
  profiled: Profiled;
  profiles: readonly CpuProfile[];
}

/**
 * Two sides' profiles part by part, in ms of CPU per request (each side's own code, its share of
 * the busy samples times its process's CPU per request): what one side spends that the other does
 * not, largest difference first. Parts under 0.02 ms on both sides are left out.
 */
export function profileDiffTable(name: string, sides: [ProfiledSide, ProfiledSide]): Table {
  const spent = ({ profiled, profiles }: ProfiledSide) => {
    const perRequest = msPer(profiled.run, profiled.process);
    return {
      perRequest,
      ms: new Map(profileParts(profiles).parts.map((part) => [part.part, part.self * perRequest])),
    };
  };
  const a = spent(sides[0]);
  const b = spent(sides[1]);
  const parts = [...new Set([...a.ms.keys(), ...b.ms.keys()])]
    .map((part) => ({ part, a: a.ms.get(part) ?? 0, b: b.ms.get(part) ?? 0 }))
    .filter((row) => Math.max(row.a, row.b) >= 0.02)
    .sort((x, y) => y.a - y.b - (x.a - x.b));
  const [first, second] = sides;
  return {
    title:
      `${name}, part by part (own code, ms of CPU per ${first.profiled.per}, sampling included): ` +
      `${first.label} ${a.perRequest.toFixed(2)}, ${second.label} ${b.perRequest.toFixed(2)}`,
    header: ['part', first.label, second.label, 'more'],
    rows: [
      ...parts.map((row) => [row.part, row.a.toFixed(3), row.b.toFixed(3), (row.a - row.b).toFixed(3)]),
      ['all', a.perRequest.toFixed(3), b.perRequest.toFixed(3), (a.perRequest - b.perRequest).toFixed(3)],
    ],
  };
}

/**
 * `Bench.withApi`: each comparison on an API started for it alone; with `profile`, the API's
 * inspector on a free port, its CPU profiled in the rounds the comparison runs `profileApi`
 * beside, and the profile's table handed to `probe`.
 */
export function apiComparisons(profile: boolean, probe: (table: Table) => void): Bench['withApi'] {
  return async (name, per, compare) => {
    const inspector = profile ? await freePort() : undefined;
    const api = await startApi(inspector ? { NODE_OPTIONS: inspectOption(inspector) } : {});
    let profiler: RoundProfiler | undefined;
    try {
      profiler = inspector ? await roundProfiler(inspector) : undefined;
      const result = await compare(api.url, profiler?.alongside);
      if (profiler) {
        const files = writeProfiles(profiler.profiles, PATHS.cache, { process: 'api', name });
        probe(profileTable({ run: result.api, process: 'api', per }, profiler.profiles, name, files));
      }
      return result;
    } finally {
      profiler?.close();
      await api.process.stop();
    }
  };
}
