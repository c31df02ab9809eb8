import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { IndexWriter } from '../search/index-writer.service';
import { StorageCleaner } from '../storage/storage-cleaner';
import { StorageService } from '../storage/storage.service';
import { DeletionAuditRepository } from './deletion-audit.repository';
import type { DeletionReason } from './video-lifecycle';
import { VideoState } from './video-state';
import { type AuditedDeletion, type FinishedDeletion, VideoRepository } from './video.repository';

/** Where the ledger lives in the bucket: beside the media, never under `videos/`. */
export const LEDGER_PREFIX = 'deletions/';

/**
 * How far before MySQL's newest audit record a replay starts reading: purges of several workers
 * write their entries with their own clocks, which may disagree by this much.
 */
const CLOCK_MARGIN_MS = 60 * 60_000;

/** An entry's key: its time first, so a listing from a moment on reads only what came after. */
export function ledgerKey(finished: { purgedAt: Date; video: { id: string } }): string {
  return `${LEDGER_PREFIX}${finished.purgedAt.toISOString()}/${finished.video.id}.json`;
}

function videoIdOf(key: string): string {
  return key.slice(key.lastIndexOf('/') + 1, -'.json'.length);
}

/**
 * An entry as stored: what finality needs and nothing personal (docs/contract.md §10.4): the
 * video's id and what its receipt shows of the deletion, never the author, the requester or the
 * content. JSON turns its dates into ISO strings.
 */
export interface LedgerEntry {
  videoId: string;
  reason: DeletionReason | null;
  deletedAt: string | null;
  purgeAt: string | null;
  objectsDeleted: number;
  purgedAt: string;
}

/** An entry written before entries were made impersonal: the whole lifecycle row, author included. */
interface PersonalEntry {
  video: {
    id: string;
    deletionReason: DeletionReason | null;
    deletedAt: string | null;
    purgeAt: string | null;
  };
  objectsDeleted: number;
  purgedAt: string;
}

/** What the ledger keeps of a finished deletion. */
export function ledgerEntry({ video, objectsDeleted, purgedAt }: FinishedDeletion): LedgerEntry {
  return {
    videoId: video.id,
    reason: video.deletionReason,
    deletedAt: video.deletedAt?.toISOString() ?? null,
    purgeAt: video.purgeAt?.toISOString() ?? null,
    objectsDeleted,
    purgedAt: purgedAt.toISOString(),
  };
}

/** An entry of either shape, read as the impersonal one; `personal` if it needs rewriting. */
export function parseLedgerEntry(text: string): { entry: LedgerEntry; personal: boolean } {
  const stored = JSON.parse(text) as LedgerEntry | PersonalEntry;
  if (!('video' in stored)) return { entry: stored, personal: false };
  const { video, objectsDeleted, purgedAt } = stored;
  return {
    entry: {
      videoId: video.id,
      reason: video.deletionReason,
      deletedAt: video.deletedAt,
      purgeAt: video.purgeAt,
      objectsDeleted,
      purgedAt,
    },
    personal: true,
  };
}

const date = (value: string | null) => (value === null ? null : new Date(value));

/**
 * The deletion ledger: every finished deletion written to object storage, before its audit record
 * and the row's removal are committed. MySQL's audit record is the tombstone every writer reads
 * (docs/contract.md §10.5); the ledger is its copy outside MySQL, so that restoring MySQL from an
 * earlier backup forgets no deletion: the replay (part of every reconcile) writes back each audit
 * record the backup lacks and removes the rows it brought back, their index documents and any media.
 *
 * An entry names no person, so an erasure leaves nothing here. A re-applied audit record takes its
 * author and requester from the row the backup brought back; with no such row it names no author
 * (empty), and its receipt is an admin's to read.
 */
@Injectable()
export class DeletionLedger {
  private readonly logger = new Logger(DeletionLedger.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly storage: StorageService,
    private readonly audits: DeletionAuditRepository,
    private readonly videos: VideoRepository,
    private readonly index: IndexWriter,
    private readonly cleaner: StorageCleaner,
  ) {}

  /** Writes one deletion's entry; a retried purge writes another, which a replay reads as the same. */
  async record(finished: FinishedDeletion): Promise<void> {
    await this.storage.putObject(
      ledgerKey(finished),
      JSON.stringify(ledgerEntry(finished)),
      'application/json',
    );
  }

  /**
   * Re-applies every deletion of the ledger that MySQL has no audit record of, reading the ledger
   * from a little before MySQL's newest audit record (all of it when there is none). Returns how
   * many deletions were re-applied: none, unless MySQL was restored from a backup.
   */
  async replay(): Promise<number> {
    const newest = await this.audits.newestPurgedAt();
    const from = newest
      ? `${LEDGER_PREFIX}${new Date(newest.getTime() - CLOCK_MARGIN_MS).toISOString()}`
      : undefined;
    let replayed = 0;
    for await (const keys of this.storage.listKeys(LEDGER_PREFIX, from)) {
      const audited = await this.audits.auditedIds(keys.map(videoIdOf));
      for (const key of keys) {
        const id = videoIdOf(key);
        if (audited.has(id)) continue;
        const text = await this.storage.getText(key);
        if (text === null) continue;
        if (await this.reapply(parseLedgerEntry(text).entry)) replayed += 1;
        audited.add(id);
      }
    }
    if (replayed > 0)
      this.logger.warn({ replayed }, 'deletions missing from MySQL re-applied from the ledger');
    return replayed;
  }

  /**
   * Rewrites every entry written before entries were made impersonal (a one-off step after an
   * upgrade; `videos scrub-ledger`). Idempotent: an entry already impersonal is left as it is.
   * Returns how many entries were read and how many rewritten.
   */
  async scrub(): Promise<{ read: number; rewritten: number }> {
    const counts = { read: 0, rewritten: 0 };
    for await (const keys of this.storage.listKeys(LEDGER_PREFIX)) {
      for (const key of keys) {
        const text = await this.storage.getText(key);
        if (text === null) continue;
        counts.read += 1;
        const { entry, personal } = parseLedgerEntry(text);
        if (!personal) continue;
        await this.storage.putObject(key, JSON.stringify(entry), 'application/json');
        counts.rewritten += 1;
      }
    }
    return counts;
  }

  private async reapply(entry: LedgerEntry): Promise<boolean> {
    const row = await this.videos.findLifecycle(entry.videoId);
    // A purge under way ends with its own audit record and event.
    if (row?.state === VideoState.Deleting) return false;
    const deletion: AuditedDeletion = {
      video: {
        id: entry.videoId,
        authorId: row?.authorId ?? '',
        deletionReason: entry.reason,
        deletionRequestedBy: row?.deletionRequestedBy ?? null,
        deletedAt: date(entry.deletedAt),
        purgeAt: date(entry.purgeAt),
      },
      objectsDeleted: entry.objectsDeleted,
      purgedAt: new Date(entry.purgedAt),
    };
    await this.dataSource.transaction((manager) => this.videos.reapplyDeletions(manager, [deletion]));
    await this.index.deleteDocument(entry.videoId);
    await this.cleaner.deleteMedia(entry.videoId);
    return true;
  }
}
