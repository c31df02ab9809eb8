import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { IndexWriter } from '../search/index-writer.service';
import { StorageCleaner } from '../storage/storage-cleaner';
import { StorageService } from '../storage/storage.service';
import { DeletionAuditRepository } from './deletion-audit.repository';
import { VideoState } from './video-state';
import { type FinishedDeletion, VideoRepository } from './video.repository';

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

/** An entry as stored: JSON turns its dates into ISO strings. */
type StoredDeletion = {
  video: Omit<FinishedDeletion['video'], 'deletedAt' | 'purgeAt'> & {
    deletedAt: string | null;
    purgeAt: string | null;
  };
  objectsDeleted: number;
  purgedAt: string;
};

function parsed(text: string): FinishedDeletion {
  const stored = JSON.parse(text) as StoredDeletion;
  const date = (value: string | null) => (value === null ? null : new Date(value));
  return {
    objectsDeleted: stored.objectsDeleted,
    purgedAt: new Date(stored.purgedAt),
    video: { ...stored.video, deletedAt: date(stored.video.deletedAt), purgeAt: date(stored.video.purgeAt) },
  };
}

/**
 * The deletion ledger: every finished deletion written to object storage, before its audit record
 * and the row's removal are committed. MySQL's audit record is the tombstone every writer reads
 * (docs/contract.md §10.5); the ledger is its copy outside MySQL, so that restoring MySQL from an
 * earlier backup forgets no deletion: the replay (part of every reconcile) writes back each audit
 * record the backup lacks and removes the rows it brought back, their index documents and any media.
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
    await this.storage.putObject(ledgerKey(finished), JSON.stringify(finished), 'application/json');
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
        if (await this.reapply(parsed(text))) replayed += 1;
        audited.add(id);
      }
    }
    if (replayed > 0)
      this.logger.warn({ replayed }, 'deletions missing from MySQL re-applied from the ledger');
    return replayed;
  }

  private async reapply(finished: FinishedDeletion): Promise<boolean> {
    const row = await this.videos.findLifecycle(finished.video.id);
    // A purge under way ends with its own audit record and event.
    if (row?.state === VideoState.Deleting) return false;
    await this.dataSource.transaction((manager) => this.videos.reapplyDeletions(manager, [finished]));
    await this.index.deleteDocument(finished.video.id);
    await this.cleaner.deleteMedia(finished.video.id);
    return true;
  }
}
