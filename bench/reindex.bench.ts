import { resolve } from 'node:path';
import { ENTRY, startProcess } from '../test/support/processes';
import { BENCH_ENV, peakRss } from './lib/bench-env';

export interface ProcessRun {
  documents: number;
  seconds: number;
  perSecond: number;
  peakRssBytes: number;
}

/** Runs a Node entry point to completion with the bench environment, sampling its peak RSS. */
export async function runMeasured(
  entry: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ output: string; peakRssBytes: number }> {
  const child = startProcess(entry, { ...BENCH_ENV, ...env }, args);
  const rss = peakRss(child.child.pid!);
  const code = await new Promise<number | null>((done) => child.child.once('exit', (c) => done(c)));
  const peakRssBytes = await rss.stop();
  if (code !== 0)
    throw new Error(`${entry} ${args.join(' ')} exited ${String(code)}:\n${child.output().slice(-2000)}`);
  return { output: child.output(), peakRssBytes };
}

/** `cli reindex` (new index, catch-up, alias swap) against a raw `helpers.bulk` load of the same rows. */
export async function benchReindex(
  env: Record<string, string> = {},
): Promise<{ service: ProcessRun; raw: ProcessRun }> {
  const service = await runMeasured(ENTRY.cli, ['reindex', '--no-progress'], env);
  const match = /Reindexed (\d+) documents .* in ([\d.]+) s/.exec(service.output);
  if (!match) throw new Error(`unexpected reindex output: ${service.output}`);
  const raw = await runMeasured(resolve(__dirname, 'raw-bulk.js'), [], env);
  const rawResult = JSON.parse(raw.output.trim().split('\n').pop()!) as {
    documents: number;
    seconds: number;
  };
  const documents = Number(match[1]);
  const seconds = Number(match[2]);
  return {
    service: { documents, seconds, perSecond: documents / seconds, peakRssBytes: service.peakRssBytes },
    raw: {
      documents: rawResult.documents,
      seconds: rawResult.seconds,
      perSecond: rawResult.documents / rawResult.seconds,
      peakRssBytes: raw.peakRssBytes,
    },
  };
}
