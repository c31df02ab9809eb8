import { atLeast, megabytes, rate } from './lib/figures';
import { ENTRY, lastJsonLine, PATHS, runWithPeakRss } from './lib/kit';
import { alternate, mapSides } from './lib/order';
import type { Step } from './lib/step';

export interface ProcessRun {
  documents: number;
  seconds: number;
  perSecond: number;
  /** As `/usr/bin/time -v` reports it (its "Maximum resident set size"). */
  peakRssBytes: number;
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
export async function measuredCli(args: string[], pattern: RegExp): Promise<ProcessRun> {
  const run = await runWithPeakRss(ENTRY.cli, args);
  const match = pattern.exec(run.output);
  if (!match) throw new Error(`unexpected output of cli ${args[0]}: ${run.output}`);
  const documents = Number(match[1]);
  const seconds = Number(match[2]);
  return { documents, seconds, perSecond: documents / seconds, peakRssBytes: run.peakRssBytes };
}

export const REINDEXED = /Reindexed (\d+) documents .* in ([\d.]+) s/;

async function rawBulk(): Promise<ProcessRun> {
  const run = await runWithPeakRss(PATHS.rawBulk, []);
  const { documents, seconds } = lastJsonLine<{ documents: number; seconds: number }>(run.output);
  return { documents, seconds, perSecond: documents / seconds, peakRssBytes: run.peakRssBytes };
}

export interface ReindexBench {
  service: ProcessRun;
  raw: ProcessRun;
}

/** Rounds even, so that `roundOrder` balances them. */
const rounds = (quick: boolean) => (quick ? 2 : 4);

/**
 * `cli reindex` (new index, catch-up, alias swap) against a raw `helpers.bulk` load of the same
 * rows, in alternating rounds (reindex, raw, raw, reindex…: `roundOrder`) so neither always gets the
 * quieter turn. One unmeasured round of each first: the steps before this one warm Elasticsearch's
 * search code, not its indexing code, so the first measured bulk load (always the CLI's) ran on a
 * colder JVM.
 */
export const reindexStep: Step<{ reindex: ReindexBench }> = {
  name: 'reindex',
  measures: 'cli reindex: a new index from MySQL, catch-up, alias swap; its peak RSS',
  baseline:
    "the client's helpers.bulk of the same rows, streamed from MySQL into a fresh index (bench/raw-bulk.ts)",
  data: 'sample',
  async run({ quick }) {
    const sides = { service: () => measuredCli(['reindex', '--no-progress'], REINDEXED), raw: rawBulk };
    await alternate(sides, 1);
    const measured = await alternate(sides, rounds(quick));
    return { reindex: mapSides(measured, combine) };
  },
  report({ reindex }, { quick }) {
    const line = (name: string, run: ProcessRun) => [
      name,
      run.documents,
      run.seconds.toFixed(2),
      rate(run.perSecond),
      megabytes(run.peakRssBytes),
    ];
    return {
      tables: [
        {
          title: `Full reindex from MySQL (the sample; ${rounds(quick)} alternating rounds each, a b b a…, after a warm-up)`,
          header: ['system', 'documents', 'seconds', 'docs/s', 'peak RSS MB'],
          rows: [
            line('cli reindex (new index, catch-up, alias swap)', reindex.service),
            line('raw helpers.bulk', reindex.raw),
          ],
        },
      ],
      targets: [
        atLeast('reindex rate, service / raw bulk', reindex.service.perSecond / reindex.raw.perSecond, 0.8),
      ],
    };
  },
};
