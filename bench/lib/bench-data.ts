import { LEDGER_PREFIX } from '@app/shared/video/deletion-ledger.service';
import type { BenchContext } from './kit';

/**
 * Empties the bench's videos: rows, audit, deletion ledger and index (a new, empty one behind the
 * alias). TRUNCATE: a scale run may have left a million rows behind, and as many documents, which
 * would make every search of the sample a search of a million videos.
 */
export async function emptyBenchData(context: BenchContext): Promise<void> {
  await context.dataSource.query('TRUNCATE TABLE videos');
  await context.dataSource.query('TRUNCATE TABLE deletion_audit');
  for await (const keys of context.storage.listKeys(LEDGER_PREFIX)) await context.storage.deleteKeys(keys);
  for (const index of await context.indexAdmin.aliasTargets()) await context.indexAdmin.deleteIndex(index);
  await context.indexAdmin.ensureAlias();
}
