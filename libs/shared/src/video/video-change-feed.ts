import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import {
  DataSource,
  type EntityManager,
  type EntitySubscriberInterface,
  type TransactionCommitEvent,
  type TransactionRollbackEvent,
} from 'typeorm';
import { RedisStreams } from '../redis/redis-streams';
import { jitteredBackoff, type Backoff } from '../util/backoff';
import { CoalescingBatcher } from '../util/coalescing-batcher';
import { VideoState } from './video-state';

/** The Redis stream of changed videos: each entry names the ids of one committed write, or a reset. */
export const VIDEO_CHANGES_STREAM = 'video-changes';

/**
 * Entries the stream keeps (about: Redis trims whole nodes). A reader that fell further behind
 * finds its position trimmed away and starts afresh.
 */
const STREAM_LENGTH = 10_000;

/**
 * A write of more rows than this (an import, an author's erasure) publishes a reset instead of its
 * ids: every reader drops everything it holds, and the stream stays small.
 */
export const MAX_IDS_PER_CHANGE = 50;

/**
 * Whether a row's move from state `from` to `to` (undefined: the row is removed) can change what a
 * search shows, and so must be published: searches show active videos only, so a move between two
 * other states (a purge claiming a soft-deleted video, then removing it) changes nothing any copy
 * holds; the move that made the row inactive was published when it was made.
 */
export function changesWhatSearchShows(from: VideoState, to: VideoState | undefined): boolean {
  return from === VideoState.Active || to === VideoState.Active;
}

/** What one entry says: these videos changed, or anything may have. */
export type Change = { ids: string[] } | { reset: true };

/** What a reader learns from reading after its position. */
export type ChangesRead =
  /** The entries after the position, and the position after them. */
  | { kind: 'changes'; changes: Change[]; position: string }
  /** The position is gone (trimmed, or Redis lost the stream): anything may have changed. */
  | { kind: 'lost'; position: string };

/** Entries read at once; a reader with more waiting reads again from where this read ended. */
const READ_COUNT = 1_000;

/** Attempts of a publish that Redis refused, over about a minute. */
const PUBLISH_ATTEMPTS = 8;
const PUBLISH_BACKOFF: Backoff = { baseMs: 250, maxMs: 15_000 };

/** Where a transaction's changed ids wait for its commit (TypeORM's per-runner `data`). */
const PENDING = 'videoChanges';

type PendingData = { [PENDING]?: Set<string> };

/**
 * The feed of committed changes to videos: what lets a reader keep a copy of video rows (the
 * API's search heads, apps/api/src/search/active/active-videos.ts) without asking MySQL each time, and
 * still never show a row that has changed since.
 *
 * Every repository write that changes what a search shows calls `changed` with the ids it wrote.
 * Inside a transaction the ids wait for the commit (a TypeORM subscriber) and go out before the
 * transaction's promise resolves, so before the request that made the change answers; a rollback
 * drops them. Readers read the stream after their last position (`read`). A publish Redis refuses
 * is retried in the background, and this process's own readers hear of every change at once
 * (`onLocalChange`), whatever Redis does.
 */
@Injectable()
export class VideoChangeFeed implements OnModuleInit, EntitySubscriberInterface {
  private readonly logger = new Logger(VideoChangeFeed.name);
  private readonly local = new EventEmitter();
  /**
   * Concurrent commits share one round trip: the first change goes out at once, those committed
   * while it is in flight together in the next, their ids in as few entries as `entriesOf` needs.
   */
  private readonly appends = new CoalescingBatcher<Change>((changes) => this.appendTogether(changes));

  constructor(
    private readonly dataSource: DataSource,
    private readonly streams: RedisStreams,
  ) {}

  onModuleInit(): void {
    this.dataSource.subscribers.push(this);
  }

  /** Rows `ids` were written through `runner`: published after its transaction commits, or now outside one. */
  async changed(runner: EntityManager | DataSource, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    const queryRunner = 'queryRunner' in runner ? runner.queryRunner : undefined;
    if (queryRunner?.isTransactionActive) {
      const data = queryRunner.data as PendingData;
      const pending = (data[PENDING] ??= new Set());
      for (const id of ids) pending.add(id);
      return;
    }
    await this.publish(ids);
  }

  /** TypeORM awaits this before the transaction's promise resolves. Never throws: the commit is done. */
  async afterTransactionCommit(event: TransactionCommitEvent): Promise<void> {
    const data = event.queryRunner.data as PendingData;
    const pending = data[PENDING];
    delete data[PENDING];
    if (pending) await this.publish([...pending]);
  }

  afterTransactionRollback(event: TransactionRollbackEvent): void {
    delete (event.queryRunner.data as PendingData)[PENDING];
  }

  /** Calls `listener` with every change this process publishes, as it publishes it. */
  onLocalChange(listener: (change: Change) => void): void {
    this.local.on('change', listener);
  }

  /** The newest position of the stream, to read from (`0-0` when it is empty). */
  async newestPosition(): Promise<string> {
    return (await this.streams.newestId(VIDEO_CHANGES_STREAM)) ?? '0-0';
  }

  /**
   * The entries after `position`, in one round trip. The oldest entry kept is read after them:
   * Redis trims the oldest first, so if it is still at or before `position`, nothing after
   * `position` was trimmed before they were read. A reader more than `READ_COUNT` entries behind
   * is told it lost its position too.
   */
  async read(position: string): Promise<ChangesRead> {
    const { entries, oldest } = await this.streams.readAfter(VIDEO_CHANGES_STREAM, position, READ_COUNT);
    const newest = entries.at(-1)?.[0] ?? position;
    const kept = position === '0-0' || (oldest !== undefined && !after(oldest[0], position));
    if (!kept || entries.length === READ_COUNT)
      return { kind: 'lost', position: oldest === undefined ? '0-0' : newest };
    return { kind: 'changes', changes: entries.map(([, fields]) => parseChange(fields)), position: newest };
  }

  private async publish(ids: string[]): Promise<void> {
    const change: Change = ids.length > MAX_IDS_PER_CHANGE ? { reset: true } : { ids };
    this.local.emit('change', change);
    await this.appends.add(change);
  }

  /**
   * Appends the changes as entries in one round trip. Never rejects: the writes are committed and
   * their requests answer; the other attempts go on in the background.
   */
  private async appendTogether(changes: Change[]): Promise<undefined[]> {
    const entries = entriesOf(changes);
    try {
      await this.append(entries);
    } catch (error) {
      this.logger.warn(`change feed unreachable, retrying: ${String(error)}`);
      void this.retry(entries);
    }
    return changes.map(() => undefined);
  }

  private async retry(entries: string[][]): Promise<void> {
    for (let failures = 1; failures < PUBLISH_ATTEMPTS; failures += 1) {
      // Unreferenced: a retry waiting for Redis does not hold a process that is shutting down.
      await sleep(jitteredBackoff(failures, PUBLISH_BACKOFF), undefined, { ref: false });
      try {
        await this.append(entries);
        return;
      } catch {
        // The next attempt, or the error below.
      }
    }
    this.logger.error(
      `change feed: ${entries.map((fields) => fields.join(' ')).join(', ')} not published; readers re-check every copy within its lifetime`,
    );
  }

  /** The entries in one write, one round trip; rejects if any failed. */
  private append(entries: string[][]): Promise<void> {
    return this.streams.append(VIDEO_CHANGES_STREAM, entries, STREAM_LENGTH);
  }
}

/**
 * The stream entries for changes published together: their ids, at most MAX_IDS_PER_CHANGE an
 * entry, each id once; or one reset, which covers everything, if any of them is a reset.
 */
export function entriesOf(changes: Change[]): string[][] {
  if (changes.some((change) => 'reset' in change)) return [['reset', '1']];
  const ids = [...new Set(changes.flatMap((change) => ('ids' in change ? change.ids : [])))];
  const entries: string[][] = [];
  for (let start = 0; start < ids.length; start += MAX_IDS_PER_CHANGE)
    entries.push(['ids', ids.slice(start, start + MAX_IDS_PER_CHANGE).join(' ')]);
  return entries;
}

/** Whether stream id `a` comes after `b` (`<ms>-<seq>`). */
export function after(a: string, b: string): boolean {
  const [aMs, aSeq] = a.split('-').map(BigInt) as [bigint, bigint];
  const [bMs, bSeq] = b.split('-').map(BigInt) as [bigint, bigint];
  return aMs > bMs || (aMs === bMs && aSeq > bSeq);
}

/** An entry's fields (`ids <id> <id>…` or `reset 1`); anything else reads as a reset. */
export function parseChange(fields: string[]): Change {
  for (let i = 0; i + 1 < fields.length; i += 2)
    if (fields[i] === 'ids') return { ids: fields[i + 1]!.split(' ').filter(Boolean) };
  return { reset: true };
}
