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

/** The bench's videos made the sample's. */
export async function resetToSample(context: BenchContext): Promise<void> {
  await emptyBenchData(context);
  await context.get(VideoImporter).importFile(PATHS.sample);
  await context.indexAdmin.refresh();
}

/** Empties the outbox: its events and their deliveries. */
export async function emptyOutbox(dataSource: DataSource): Promise<void> {
  await dataSource.query('TRUNCATE TABLE webhook_deliveries');
  await dataSource.query('TRUNCATE TABLE outbox_events');
}

/** Rows per fill statement: each is its own transaction, so the undo log stays small. */
const FILL_BATCH = 100_000;

/**
 * The outbox emptied, then filled by MariaDB's sequence engine in a few statements rather than a
 * round trip per row: `count` events, each selected by `events` from `seq_1_to_<count> s`, then a
 * delivery of each, selected by `deliveries` (given the last event's seq) from `outbox_events o`.
 * An INSERT … SELECT takes auto-increment values in growing blocks and leaves the rest of the last
 * one unused, so the deliveries follow the events' seqs as written.
 */
export async function fillOutbox(
  dataSource: DataSource,
  count: number,
  events: { select: string; params?: unknown[] },
  deliveries: (lastSeq: number) => { columns: string; select: string; params: unknown[] },
): Promise<void> {
  await emptyOutbox(dataSource);
  for (let from = 1; from <= count; from += FILL_BATCH)
    await dataSource.query(
      `INSERT INTO outbox_events (id, type, subject, author_id, body, occurred_at)
       SELECT ${events.select} FROM seq_1_to_${count} s WHERE s.seq BETWEEN ? AND ?`,
      [...(events.params ?? []), from, Math.min(count, from + FILL_BATCH - 1)],
    );
  const [written] = await dataSource.query<{ last: string }[]>('SELECT MAX(seq) AS last FROM outbox_events');
  const last = Number(written!.last);
  const { columns, select, params } = deliveries(last);
  for (let from = 1; from <= last; from += FILL_BATCH)
    await dataSource.query(
      `INSERT INTO webhook_deliveries (${columns})
       SELECT ${select} FROM outbox_events o WHERE o.seq BETWEEN ? AND ? ORDER BY o.seq`,
      [...params, from, from + FILL_BATCH - 1],
    );
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
