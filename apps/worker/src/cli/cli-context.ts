import { DataSource } from 'typeorm';
import type { AppConfig } from '@app/shared/config/config.schema';
import { dataSourceOptions } from '@app/shared/database/data-source';
import { OutboxRepository } from '@app/shared/events/outbox.repository';
import { createSearchClient } from '@app/shared/search/search.client';
import { SearchIndexService } from '@app/shared/search/search-index.service';
import { StorageService } from '@app/shared/storage/storage.service';
import { VideoRepository } from '@app/shared/video/video.repository';

/** The same services the worker wires through Nest, built directly for a short-lived command. */
export interface CliContext {
  dataSource: DataSource;
  videos: VideoRepository;
  outbox: OutboxRepository;
  storage: StorageService;
  search: SearchIndexService;
  close(): Promise<void>;
}

export async function openCliContext(config: AppConfig): Promise<CliContext> {
  const dataSource = new DataSource(dataSourceOptions(config));
  await dataSource.initialize();
  const search = new SearchIndexService(createSearchClient(config), config);
  const storage = new StorageService(config);
  return {
    dataSource,
    videos: new VideoRepository(dataSource),
    outbox: new OutboxRepository(dataSource),
    storage,
    search,
    async close() {
      storage.onApplicationShutdown();
      await search.close();
      await dataSource.destroy();
    },
  };
}
