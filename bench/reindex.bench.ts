import { ENTRY, PATHS, runWithPeakRss } from './lib/kit';
import { alternate } from './lib/order';

export interface ProcessRun {
  documents: number;
  seconds: number;
  perSecond: number;
  /** As `/usr/bin/time -v` reports it (its "Maximum resident set size"). */
  peakRssBytes: number;
}

/** Runs a Node entry point to completion with the bench environment, with its peak RSS. */
export async function runMeasured(
  entry: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ output: string; peakRssBytes: number }> {
  const run = await runWithPeakRss(entry, args, env);
  if (run.code !== 0)
    throw new Error(`${entry} ${args.join(' ')} exited ${String(run.code)}:\n${run.output.slice(-2000)}`);
  return run;
}

/** Adds up rounds of one side: total documents over total seconds, the highest peak RSS. */
function combine(runs: ProcessRun[]): ProcessRun {
  const documents = runs.reduce((n, run) => n + run.documents, 0);
  const seconds = runs.reduce((n, run) => n + run.seconds, 0);
  return {
    documents,
    seconds,
    perSecond: documents / seconds,
    peakRssBytes: Math.max(...runs.map((run) => run.peakRssBytes)),
  };
}

/**
 * Runs a CLI command whose last report names how many documents it wrote and in how many seconds
 * (`pattern` captures both), with its peak RSS.
 */
export async function measuredCli(
  args: string[],
  pattern: RegExp,
  env: Record<string, string> = {},
): Promise<ProcessRun> {
  const run = await runMeasured(ENTRY.cli, args, env);
  const match = pattern.exec(run.output);
  if (!match) throw new Error(`unexpected output of cli ${args[0]}: ${run.output}`);
  const documents = Number(match[1]);
  const seconds = Number(match[2]);
  return { documents, seconds, perSecond: documents / seconds, peakRssBytes: run.peakRssBytes };
}

export const REINDEXED = /Reindexed (\d+) documents .* in ([\d.]+) s/;

async function rawBulkOnce(env: Record<string, string>): Promise<ProcessRun> {
  const run = await runMeasured(PATHS.rawBulk, [], env);
  const { documents, seconds } = JSON.parse(run.output.trim().split('\n').pop()!) as {
    documents: number;
    seconds: number;
  };
  return { documents, seconds, perSecond: documents / seconds, peakRssBytes: run.peakRssBytes };
}

/**
 * `cli reindex` (new index, catch-up, alias swap) against a raw `helpers.bulk` load of the same
 * rows, in alternating rounds (reindex, raw, raw, reindex…: `roundOrder`) so neither always gets the
 * quieter turn.
 * One unmeasured round of each first: the benches before this one warm Elasticsearch's search
 * code, not its indexing code, so the first measured bulk load (always the CLI's) ran on a colder
 * JVM.
 */
export async function benchReindex({
  rounds = 1,
  env = {},
}: { rounds?: number; env?: Record<string, string> } = {}): Promise<{
  service: ProcessRun;
  raw: ProcessRun;
}> {
  const reindexOnce = () => measuredCli(['reindex', '--no-progress'], REINDEXED, env);
  await reindexOnce();
  await rawBulkOnce(env);
  const measured = await alternate({ service: reindexOnce, raw: () => rawBulkOnce(env) }, rounds);
  return { service: combine(measured.service), raw: combine(measured.raw) };
}
