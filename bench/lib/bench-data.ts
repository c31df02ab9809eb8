import type { DataSource } from 'typeorm';
import { LEDGER_PREFIX } from '@app/shared/video/deletion-ledger.service';
import { PATHS, VideoImporter, type BenchContext } from './kit';

/** The videos of the sample (data/pyvideo.jsonl.gz). */
export const SAMPLE_VIDEOS = 21_713;

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

/** The bench's videos made the sample's, unless they are already that many. */
export async function resetToSample(context: BenchContext): Promise<void> {
  if ((await context.videos.count()) === SAMPLE_VIDEOS) return;
  await emptyBenchData(context);
  await context.get(VideoImporter).importFile(PATHS.sample);
  await context.indexAdmin.refresh();
}

/** Empties the outbox: its events and their deliveries. */
export async function emptyOutbox(dataSource: DataSource): Promise<void> {
  await dataSource.query('TRUNCATE TABLE webhook_deliveries');
  await dataSource.query('TRUNCATE TABLE outbox_events');
}

/** The index behind the alias as the searches found it: its shape is half of what they cost. */
export interface IndexState {
  /** Lucene segments of the primaries: each search visits every one. */
  segments: number;
  /** Documents deleted or replaced and not yet merged away, which searches still step over. */
  deletedDocs: number;
}

export async function indexState(context: BenchContext): Promise<IndexState> {
  const stats = await context.engine.indices.stats({
    index: context.config.ELASTICSEARCH_INDEX,
    metric: ['segments', 'docs'],
  });
  return {
    segments: stats._all.primaries?.segments?.count ?? 0,
    deletedDocs: stats._all.primaries?.docs?.deleted ?? 0,
  };
}
