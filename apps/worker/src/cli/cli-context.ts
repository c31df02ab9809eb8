import { DataSource } from 'typeorm';
import type { AppConfig } from '@app/shared/config/config.schema';
import { dataSourceOptions } from '@app/shared/database/data-source';
import { OutboxRepository } from '@app/shared/events/outbox.repository';
import { IndexAdmin } from '@app/shared/search/index-admin.service';
import { IndexInventory } from '@app/shared/search/index-inventory.service';
import { IndexWriter } from '@app/shared/search/index-writer.service';
import { createSearchClient } from '@app/shared/search/search.client';
import { StorageCleaner } from '@app/shared/storage/storage-cleaner';
import { StorageService } from '@app/shared/storage/storage.service';
import { DeletionAuditRepository } from '@app/shared/video/deletion-audit.repository';
import { DeletionLedger } from '@app/shared/video/deletion-ledger.service';
import { VideoRepository } from '@app/shared/video/video.repository';

/** The same services the worker wires through Nest, built directly for a short-lived command. */
export interface CliContext {
  dataSource: DataSource;
  videos: VideoRepository;
  outbox: OutboxRepository;
  storage: StorageService;
  /** The indices behind the alias: create, load, swap, refresh, the definition's version. */
  indexAdmin: IndexAdmin;
  /** Writes and deletions of documents. */
  indexWriter: IndexWriter;
  /** Which documents the index holds, at which versions. */
  indexInventory: IndexInventory;
  ledger: DeletionLedger;
  close(): Promise<void>;
}

export async function openCliContext(config: AppConfig): Promise<CliContext> {
  const dataSource = new DataSource(dataSourceOptions(config));
  await dataSource.initialize();
  const client = createSearchClient(config);
  const indexWriter = new IndexWriter(client, config);
  const storage = new StorageService(config);
  const videos = new VideoRepository(dataSource);
  const audits = new DeletionAuditRepository(dataSource);
  return {
    dataSource,
    videos,
    outbox: new OutboxRepository(dataSource),
    storage,
    indexAdmin: new IndexAdmin(client, config),
    indexWriter,
    indexInventory: new IndexInventory(client, config),
    ledger: new DeletionLedger(dataSource, storage, audits, videos, indexWriter, new StorageCleaner(storage)),
    async close() {
      storage.onApplicationShutdown();
      await client.close();
      await dataSource.destroy();
    },
  };
}
