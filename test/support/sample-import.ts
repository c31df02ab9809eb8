import { resolve } from 'node:path';
import { ENTRY, ROOT, runProcess } from './processes';

/** The sample the repository ships (data/README.md). */
export const SAMPLE = resolve(ROOT, 'data/pyvideo.jsonl.gz');

/** `npm run cli -- import` of the sample's first `limit` records, as an operator runs it; its output. */
export async function importSample(
  limit: number,
  batchSize: number,
): Promise<{ code: number | null; output: string }> {
  return runProcess(ENTRY.cli, [
    'import',
    SAMPLE,
    '--limit',
    String(limit),
    '--batch-size',
    String(batchSize),
  ]);
}
