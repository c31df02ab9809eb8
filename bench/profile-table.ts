import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { profileParts, type CpuProfile } from './lib/cpu-profile';
import { msPer, type CpuRun } from './lib/cpu-budget';
import { ROOT } from './lib/kit';
import type { Table } from './lib/report';

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
  /** The profiled process's part in `run.cpu`. */
  process: 'api' | 'worker';
  /** What one request is: search, delete, purge. */
  per: string;
}

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
      `Where the ${process === 'api' ? "API's" : "worker's"} CPU went, ${name}: ${profiles.length} profiled rounds, ${busyMs.toFixed(0)} ms of busy samples, ` +
      `${perRequest.toFixed(2)} ms of CPU per ${per} in those rounds (sampling included); files: ${files.join(', ')}`,
    header: ['part', 'own code', `ms per ${per}`, 'with what it calls', `ms per ${per}`],
    rows: parts
      .filter((part) => part.self >= LISTED.self || part.total >= LISTED.total)
      .map((part) => [part.part, pct(part.self), msOf(part.self), pct(part.total), msOf(part.total)]),
  };
}
