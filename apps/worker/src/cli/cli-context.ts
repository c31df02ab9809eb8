import { DataSource } from 'typeorm';
import type { AppConfig } from '@app/shared/config/config.schema';
import { dataSourceOptions } from '@app/shared/database/data-source';
import { OutboxRepository } from '@app/shared/events/outbox.repository';
import { createSearchClient } from '@app/shared/search/search.client';
import { SearchIndexService } from '@app/shared/search/search-index.service';
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
  search: SearchIndexService;
  ledger: DeletionLedger;
  close(): Promise<void>;
}

export async function openCliContext(config: AppConfig): Promise<CliContext> {
  const dataSource = new DataSource(dataSourceOptions(config));
  await dataSource.initialize();
  const search = new SearchIndexService(createSearchClient(config), config);
  const storage = new StorageService(config);
  const videos = new VideoRepository(dataSource);
  const audits = new DeletionAuditRepository(dataSource);
  return {
    dataSource,
    videos,
    outbox: new OutboxRepository(dataSource),
    storage,
    search,
    ledger: new DeletionLedger(dataSource, storage, audits, videos, search, new StorageCleaner(storage)),
    async close() {
      storage.onApplicationShutdown();
      await search.close();
      await dataSource.destroy();
    },
  };
}
