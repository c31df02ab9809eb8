import type { INestApplicationContext, Type } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { openWorkerContext } from '@app/worker/worker-context';
import { loadConfig } from '@app/shared/config/load-config';
import type { AppConfig } from '@app/shared/config/config.schema';
import { OutboxRepository } from '@app/shared/events/outbox.repository';
import { SearchIndexService } from '@app/shared/search/search-index.service';
import { StorageService } from '@app/shared/storage/storage.service';
import { DeletionLedger, LEDGER_PREFIX } from '@app/shared/video/deletion-ledger.service';
import { VideoRepository } from '@app/shared/video/video.repository';

/**
 * A worker context (`openWorkerContext`, the services a CLI command uses) with the ones tests
 * reach most often by name; `get` gives any other.
 */
export interface ServicesContext {
  config: AppConfig;
  get<T>(type: Type<T>): T;
  dataSource: DataSource;
  videos: VideoRepository;
  outbox: OutboxRepository;
  storage: StorageService;
  search: SearchIndexService;
  ledger: DeletionLedger;
  close(): Promise<void>;
}

/** The services of `app`, opened on `config`, as a `ServicesContext`. */
export function servicesOf(app: INestApplicationContext, config: AppConfig): ServicesContext {
  return {
    config,
    get: <T>(type: Type<T>) => app.get(type),
    dataSource: app.get(DataSource),
    videos: app.get(VideoRepository),
    outbox: app.get(OutboxRepository),
    storage: app.get(StorageService),
    search: app.get(SearchIndexService),
    ledger: app.get(DeletionLedger),
    close: () => app.close(),
  };
}

export interface TestContext extends ServicesContext {
  /** Empties the test database, the test index and the test bucket. */
  reset(): Promise<void>;
  /** Every key in the test bucket under `videos/`. */
  allMediaKeys(): Promise<string[]>;
  /** Ids of every document in the index behind the alias. */
  indexedIds(): Promise<string[]>;
}

/** The test environment, with `env` overriding it (a test's own MySQL or Elasticsearch). */
export async function openTestContext(env: Record<string, string> = {}): Promise<TestContext> {
  const config = loadConfig({ ...process.env, ...env });
  const context = servicesOf(await openWorkerContext(config), config);
  const allMediaKeys = async () => {
    const keys: string[] = [];
    for await (const page of context.storage.listKeys('videos/')) keys.push(...page);
    return keys;
  };
  return {
    ...context,
    allMediaKeys,
    async indexedIds() {
      await context.search.refresh();
      const ids: string[] = [];
      for await (const batch of context.search.documentIdBatches()) ids.push(...batch);
      return ids;
    },
    async reset() {
      await context.dataSource.query('DELETE FROM erasures');
      await context.dataSource.query('DELETE FROM trash_operations');
      await context.dataSource.query('DELETE FROM webhook_deliveries');
      await context.dataSource.query('DELETE FROM outbox_events');
      await context.dataSource.query('DELETE FROM deletion_audit');
      await context.dataSource.query('DELETE FROM videos');
      for (const index of await context.search.versionedIndices()) await context.search.deleteIndex(index);
      await context.storage.ensureBucket();
      // The media, and the deletion ledger: a later reconcile would otherwise re-apply old deletions.
      for (const prefix of ['videos/', LEDGER_PREFIX]) {
        for await (const page of context.storage.listKeys(prefix)) await context.storage.deleteKeys(page);
      }
      await context.search.ensureAlias();
    },
  };
}

/** Makes sure the test index and its alias exist, for a suite that searches but seeds nothing. */
export async function ensureTestIndex(): Promise<void> {
  const context = await openTestContext();
  try {
    await context.search.ensureAlias();
  } finally {
    await context.close();
  }
}
