import { Injectable } from '@nestjs/common';
import type { Pool as CallbackPool, RowDataPacket } from 'mysql2';
import type { Pool } from 'mysql2/promise';
import { DataSource, In, type EntityManager, type Repository } from 'typeorm';
import type { MysqlDriver } from 'typeorm/driver/mysql/MysqlDriver';
import { transactionRetryingDeadlocks } from '../database/transaction';
import { UNDETERMINED_LANGUAGE } from '../language/language-code';
import type { IndexedVideo } from '../search/video-document';
import { purgeDueSql, type NextState } from './video-lifecycle';
import { changesWhatSearchShows, VideoChangeFeed } from './video-change-feed';
import { VideoState } from './video-state';
import { VideoEntity } from './video.entity';

/**
 * A video's content as the import writes it: what its index document is made from, less the
 * state, which is the database's (as are the timestamps).
 */
export type VideoContent = Omit<IndexedVideo, 'state'>;

/**
 * Columns as entity properties: hot paths read rows with one plain query and no ORM hydration.
 * A video's content (what the import writes and a search shows) apart from its lifecycle (what
 * deciding on it and auditing its deletion need).
 */
const CONTENT_COLUMNS = 'title, description, tags, speakers, event, published_at AS publishedAt, language';
export const LIFECYCLE_COLUMNS = `id, author_id AS authorId, state, deleted_at AS deletedAt, purge_at AS purgeAt,
  deletion_reason AS deletionReason, deletion_requested_by AS deletionRequestedBy, version`;
const VIDEO_COLUMNS = `${LIFECYCLE_COLUMNS}, ${CONTENT_COLUMNS}, created_at AS createdAt, updated_at AS updatedAt`;

/** What deciding on a row and auditing its deletion need: no content columns. */
export type VideoLifecycleRow = Pick<
  VideoEntity,
  'id' | 'authorId' | 'state' | 'deletedAt' | 'purgeAt' | 'deletionReason' | 'deletionRequestedBy' | 'version'
>;

/** The JSON columns of a row: MariaDB returns them as text, MySQL as parsed values. */
type JsonLists = { tags: string | string[]; speakers: string | string[] };

type RawVideo = Omit<VideoEntity, keyof JsonLists> & JsonLists;

const parsedList = (value: string | string[]): string[] =>
  typeof value === 'string' ? (JSON.parse(value) as string[]) : value;

function parseLists<T extends JsonLists>(
  raw: T,
): Omit<T, keyof JsonLists> & { tags: string[]; speakers: string[] } {
  return { ...raw, tags: parsedList(raw.tags), speakers: parsedList(raw.speakers) };
}

/** What a deletion's audit record is written from. */
export interface AuditedDeletion {
  video: Pick<
    VideoLifecycleRow,
    'id' | 'authorId' | 'deletionReason' | 'deletionRequestedBy' | 'deletedAt' | 'purgeAt'
  >;
  objectsDeleted: number;
  purgedAt: Date;
}

/** A deletion whose media and index document are gone: what its audit record and event say. */
export interface FinishedDeletion extends AuditedDeletion {
  video: VideoLifecycleRow;
}

/** What a search answer shows of a video, and the version it was read at. */
export type VideoSummary = Pick<
  VideoEntity,
  | 'id'
  | 'authorId'
  | 'title'
  | 'description'
  | 'tags'
  | 'speakers'
  | 'event'
  | 'publishedAt'
  | 'language'
  | 'version'
>;

/** What a video's language is detected from, and the version it was read at. */
export type LanguageSource = Pick<VideoEntity, 'id' | 'title' | 'description' | 'version'>;

/** A language detected for a row, from its text as read at `version`. */
export interface DetectedLanguage {
  id: string;
  version: number;
  language: string;
}

/** Only the columns a search answer shows: fewer values to send, parse and allocate per hit. */
type RawSummary = Omit<VideoSummary, keyof JsonLists> & JsonLists;

const SUMMARY_COLUMNS = `id, author_id AS authorId, ${CONTENT_COLUMNS}, version`;

/**
 * `items` lengthened to the next multiple of `step` by repeating the last one, so that statements
 * built with one placeholder per item come in a few shapes only. Empty stays empty.
 */
export function paddedToMultiple<T>(items: T[], step: number): T[] {
  if (items.length === 0) return items;
  const slots = Math.ceil(items.length / step) * step;
  return [...items, ...Array<T>(slots - items.length).fill(items.at(-1)!)];
}

/** Plain data access for videos: no rules here, the services hold those. */
@Injectable()
export class VideoRepository {
  private readonly videos: Repository<VideoEntity>;

  private promisePool?: Pool;

  constructor(
    private readonly dataSource: DataSource,
    private readonly changes: VideoChangeFeed,
  ) {
    this.videos = dataSource.getRepository(VideoEntity);
  }

  /**
   * Inserts new videos and updates the content of existing ones (bumping their version); state is
   * kept. A video whose deletion was recorded (its `deletion_audit` row, the tombstone) is neither
   * inserted nor updated: a deletion is final (docs/contract.md §10.5). The tombstone is read in the
   * same statement as the insert, with a shared lock (an INSERT … SELECT locks what it reads), so a
   * purge committing its audit record meanwhile either comes first and is seen, or waits.
   */
  async upsertContent(rows: VideoContent[]): Promise<void> {
    if (rows.length === 0) return;
    // Timestamps come from this process's clock, like every other write, never the server's time zone.
    const now = new Date();
    // One SELECT of placeholders per row: the one row constructor MySQL and MariaDB share. The
    // tombstone is an anti-join on its unique key (NOT EXISTS was planned as a scan of every
    // tombstone), with the id in the key's own character set.
    const selects = rows
      .map((_, n) =>
        n === 0
          ? `SELECT ? AS id, ? AS author_id, ? AS title, ? AS description, ? AS tags, ? AS speakers, ? AS event,
               ? AS published_at, ? AS language, ? AS created_at, ? AS updated_at`
          : 'SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?',
      )
      .join(' UNION ALL ');
    const values = rows.flatMap((row) => [
      row.id,
      row.authorId,
      row.title,
      row.description,
      JSON.stringify(row.tags),
      JSON.stringify(row.speakers),
      row.event,
      row.publishedAt,
      row.language,
      now,
      now,
    ]);
    // VALUES(col) is deprecated in MySQL 8 but is the one upsert syntax MySQL and MariaDB share.
    await transactionRetryingDeadlocks(this.dataSource, async (manager) => {
      await manager.query(
        `INSERT INTO videos (id, author_id, title, description, tags, speakers, event, published_at, language, created_at, updated_at)
         SELECT imported.* FROM (${selects}) AS imported
         LEFT JOIN deletion_audit tombstone
           ON tombstone.video_id = CONVERT(imported.id USING ascii) COLLATE ascii_bin
         WHERE tombstone.id IS NULL
         ON DUPLICATE KEY UPDATE
           author_id = VALUES(author_id), title = VALUES(title), description = VALUES(description),
           tags = VALUES(tags), speakers = VALUES(speakers), event = VALUES(event), published_at = VALUES(published_at),
           language = VALUES(language), version = videos.version + 1, updated_at = VALUES(updated_at)`,
        values,
      );
      await this.changes.changed(
        manager,
        rows.map((row) => row.id),
      );
    });
  }

  /**
   * Moves each row's version to `to`, if it is still at `from` (a concurrent change has bumped it
   * already and carries its own write). Nothing else of the row changes, so nothing a search shows:
   * the one write here that the change feed is not told of.
   */
  async advanceVersions(moves: { id: string; from: number; to: number }[]): Promise<void> {
    for (const move of moves) {
      await this.dataSource.query(
        'UPDATE videos SET version = ? WHERE id = ? AND version = ? AND version < ?',
        [move.to, move.id, move.from, move.to],
      );
    }
  }

  async findByIds(ids: string[]): Promise<VideoEntity[]> {
    if (ids.length === 0) return [];
    const rows: RawVideo[] = await this.dataSource.query(
      `SELECT ${VIDEO_COLUMNS} FROM videos WHERE id IN (?)`,
      [ids],
    );
    return rows.map(parseLists);
  }

  /**
   * A row's lifecycle columns, without its content (a description can be many kilobytes): each
   * purge claims its video with this read.
   */
  async findLifecycle(id: string): Promise<VideoLifecycleRow | undefined> {
    const [rows] = await this.pool.execute<RowDataPacket[]>(
      `SELECT ${LIFECYCLE_COLUMNS} FROM videos WHERE id = ?`,
      [id],
    );
    return rows[0] as VideoLifecycleRow | undefined;
  }

  /** mysql2's pool behind TypeORM (which types it as `any`); it exists once the data source is initialised. */
  private get pool(): Pool {
    this.promisePool ??= ((this.dataSource.driver as MysqlDriver).pool as CallbackPool).promise();
    return this.promisePool;
  }

  /**
   * What a search shows of the active videos among `ids`. Searches run this for the hits they hold
   * no copy of (apps/api/src/search/active/active-videos.ts), so it goes straight to mysql2's pool as a
   * prepared statement, without TypeORM's query runner: less CPU in both the API and MySQL. The id
   * list is padded (with its last id) to a multiple of 10, so each connection keeps at most ten
   * statements for pages of up to 100, however many sizes it serves: MySQL caps prepared statements
   * server-wide (`max_prepared_stmt_count`), for every API process together. `USE INDEX (PRIMARY)`:
   * costing the plans of the other indexes (on `state`) took about a sixth of MySQL's time per query.
   */
  async findActiveByIds(ids: string[]): Promise<VideoSummary[]> {
    if (ids.length === 0) return [];
    const padded = paddedToMultiple(ids, 10);
    const [rows] = await this.pool.execute<RowDataPacket[]>(
      `SELECT ${SUMMARY_COLUMNS} FROM videos USE INDEX (PRIMARY) WHERE id IN (${padded.map(() => '?').join(', ')}) AND state = ?`,
      [...padded, VideoState.Active],
    );
    return (rows as RawSummary[]).map(parseLists);
  }

  count(): Promise<number> {
    return this.videos.count();
  }

  /** Reads a row and locks it until the transaction ends, so two deciders never interleave. */
  async lockById(manager: EntityManager, id: string): Promise<VideoEntity | null> {
    const rows: RawVideo[] = await manager.query(
      `SELECT ${VIDEO_COLUMNS} FROM videos WHERE id = ? FOR UPDATE`,
      [id],
    );
    return rows[0] ? parseLists(rows[0]) : null;
  }

  /** Locks the rows among `ids` that are in `deleting` until the transaction ends; returns their ids. */
  async lockDeleting(manager: EntityManager, ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows: { id: string }[] = await manager.query(
      'SELECT id FROM videos WHERE id IN (?) AND state = ? ORDER BY id FOR UPDATE',
      [ids, VideoState.Deleting],
    );
    return new Set(rows.map((row) => row.id));
  }

  /**
   * Ends deletions in the caller's transaction: their audit records, then their rows (those in
   * `deleting`), one statement each for the whole batch.
   */
  finishDeletions(manager: EntityManager, finished: FinishedDeletion[]): Promise<void> {
    return this.endDeletions(manager, finished, '=');
  }

  /**
   * Ends deletions the deletion ledger holds and MySQL has forgotten (restored from an earlier
   * backup): their audit records again, and the rows the backup brought back, whatever their state
   * but `deleting` (a purge under way finishes that one itself, with its event).
   */
  reapplyDeletions(manager: EntityManager, finished: AuditedDeletion[]): Promise<void> {
    return this.endDeletions(manager, finished, '<>');
  }

  private async endDeletions(
    manager: EntityManager,
    finished: AuditedDeletion[],
    deleting: '=' | '<>',
  ): Promise<void> {
    if (finished.length === 0) return;
    await this.recordAudits(manager, finished);
    const ids = finished.map(({ video }) => video.id);
    await manager.query(`DELETE FROM videos WHERE id IN (?) AND state ${deleting} ?`, [
      ids,
      VideoState.Deleting,
    ]);
    // A finished purge removes rows in `deleting`; a replay removes rows a backup brought back, in
    // any state, so it is published.
    if (deleting === '<>' || changesWhatSearchShows(VideoState.Deleting, undefined))
      await this.changes.changed(manager, ids);
  }

  /** INSERT IGNORE on the unique video id, so a repeat is a no-op. */
  private async recordAudits(manager: EntityManager, finished: AuditedDeletion[]): Promise<void> {
    await manager.query(
      `INSERT IGNORE INTO deletion_audit
         (video_id, author_id, reason, requested_by, deleted_at, purge_at, objects_deleted, purged_at)
       VALUES ?`,
      [
        finished.map(({ video, objectsDeleted, purgedAt }) => [
          video.id,
          video.authorId,
          video.deletionReason ?? 'permanent',
          video.deletionRequestedBy,
          video.deletedAt,
          video.purgeAt,
          objectsDeleted,
          purgedAt,
        ]),
      ],
    );
  }

  /**
   * Writes a new state and bumps the version. With `expectedVersion`, only if the row is still at
   * that version (optimistic, no lock held). `runner` is the transaction's manager, or the pool.
   * `from`, the state the caller read, lets a write between two states no search shows (a purge's
   * claim) skip the change feed; without it the write is published. Returns whether the row was written.
   */
  async applyState(
    id: string,
    next: NextState,
    now: Date,
    {
      runner = this.dataSource,
      expectedVersion,
      from,
    }: { runner?: EntityManager | DataSource; expectedVersion?: number; from?: VideoState } = {},
  ): Promise<boolean> {
    const result: { affectedRows: number } = await runner.query(
      `UPDATE videos SET state = ?, deleted_at = ?, purge_at = ?, deletion_reason = ?, deletion_requested_by = ?,
         updated_at = ?, version = version + 1
       WHERE id = ?${expectedVersion === undefined ? '' : ' AND version = ?'}`,
      [
        next.state,
        next.deletedAt,
        next.purgeAt,
        next.deletionReason,
        next.deletionRequestedBy,
        now,
        id,
        ...(expectedVersion === undefined ? [] : [expectedVersion]),
      ],
    );
    if (result.affectedRows === 0) return false;
    if (from === undefined || changesWhatSearchShows(from, next.state))
      await this.changes.changed(runner, [id]);
    return true;
  }

  /**
   * Keyset paging in id order (`WHERE … AND id > ? ORDER BY id LIMIT ?`): no OFFSET, so every page
   * costs the same and memory stays flat at any size.
   */
  private async *keysetPages<T extends { id: string }>(
    select: string,
    where: string,
    parameters: unknown[],
    batchSize: number,
  ): AsyncGenerator<T[]> {
    let after = '';
    for (;;) {
      const rows: T[] = await this.dataSource.query(
        `SELECT ${select} FROM videos WHERE ${where} AND id > ? ORDER BY id LIMIT ?`,
        [...parameters, after, batchSize],
      );
      if (rows.length === 0) return;
      yield rows;
      if (rows.length < batchSize) return;
      after = rows[rows.length - 1]!.id;
    }
  }

  private async *idBatches(
    where: string,
    parameters: unknown[],
    batchSize: number,
  ): AsyncGenerator<string[]> {
    for await (const rows of this.keysetPages<{ id: string }>('id', where, parameters, batchSize)) {
      yield rows.map((row) => row.id);
    }
  }

  /** Every row (or every row changed since a moment) in id order, a batch at a time. */
  async *rowBatches(batchSize = 1_000, changedSince?: Date): AsyncGenerator<VideoEntity[]> {
    const [where, parameters] = changedSince ? ['updated_at >= ?', [changedSince]] : ['TRUE', []];
    for await (const rows of this.keysetPages<RawVideo>(VIDEO_COLUMNS, where, parameters, batchSize)) {
      yield rows.map(parseLists);
    }
  }

  /** Rows whose language is undetermined, in id order, a batch at a time (`cli languages`). */
  undeterminedLanguages(batchSize = 500): AsyncGenerator<LanguageSource[]> {
    return this.keysetPages<LanguageSource>(
      'id, title, description, version',
      'language = ?',
      [UNDETERMINED_LANGUAGE],
      batchSize,
    );
  }

  /**
   * Writes each detected language, bumping the version, where the row is still at the version its
   * text was read at and still undetermined: a row changed since (an import that wrote other text,
   * or its own language) keeps what it has. One transaction; returns the ids written.
   */
  async setLanguages(detected: DetectedLanguage[]): Promise<string[]> {
    if (detected.length === 0) return [];
    const now = new Date();
    return transactionRetryingDeadlocks(this.dataSource, async (manager) => {
      const written: string[] = [];
      for (const { id, version, language } of detected) {
        const result: { affectedRows: number } = await manager.query(
          `UPDATE videos SET language = ?, version = version + 1, updated_at = ?
           WHERE id = ? AND version = ? AND language = ?`,
          [language, now, id, version, UNDETERMINED_LANGUAGE],
        );
        if (result.affectedRows > 0) written.push(id);
      }
      await this.changes.changed(manager, written);
      return written;
    });
  }

  /** Videos purged since a moment (their rows are gone; their audit records say when). */
  async purgedSince(since: Date): Promise<string[]> {
    const rows: { video_id: string }[] = await this.dataSource.query(
      'SELECT video_id FROM deletion_audit WHERE purged_at >= ?',
      [since],
    );
    return rows.map((row) => row.video_id);
  }

  /** Soft-deleted videos whose purge date has passed. */
  dueForPurge(now: Date, batchSize = 500): AsyncGenerator<string[]> {
    const due = purgeDueSql(now);
    return this.idBatches(due.where, due.parameters, batchSize);
  }

  /** Videos whose permanent deletion has started but not finished. */
  inDeletion(batchSize = 500): AsyncGenerator<string[]> {
    return this.idBatches('state = ?', [VideoState.Deleting], batchSize);
  }

  /** Which of these ids still have a row, in any state. */
  async existingIds(ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.videos.find({ select: { id: true }, where: { id: In(ids) } });
    return new Set(rows.map((row) => row.id));
  }

  /**
   * Soft-deleted videos whose purge date has passed, counted up to `cap` (the purges-due metric):
   * the count stops at the cap in the `(state, purge_at)` index, so a huge backlog costs no more
   * than `cap` index entries.
   */
  async countDuePurges(now: Date, cap: number): Promise<number> {
    const due = purgeDueSql(now);
    const rows: { due: number | string }[] = await this.dataSource.query(
      `SELECT COUNT(*) AS due FROM (SELECT 1 FROM videos WHERE ${due.where} LIMIT ?) AS due_purges`,
      [...due.parameters, cap],
    );
    return Number(rows[0]?.due ?? 0);
  }

  /** The oldest purge date still waiting, for the purge-lag metric. */
  async oldestDuePurge(now: Date): Promise<Date | null> {
    const due = purgeDueSql(now);
    const rows: { oldest: Date | null }[] = await this.dataSource.query(
      `SELECT MIN(purge_at) AS oldest FROM videos WHERE ${due.where}`,
      due.parameters,
    );
    return rows[0]?.oldest ?? null;
  }
}
