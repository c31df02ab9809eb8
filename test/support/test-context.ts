import type { INestApplicationContext, Type } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { openWorkerContext } from '@app/worker/worker-context';
import { loadConfig } from '@app/shared/config/load-config';
import type { AppConfig } from '@app/shared/config/config.schema';
import { OutboxRepository } from '@app/shared/events/outbox.repository';
import type { Client } from '@elastic/elasticsearch';
import { IndexReads } from '@app/api/search/engine/index-reads';
import { IndexAdmin } from '@app/shared/search/index-admin.service';
import { IndexInventory } from '@app/shared/search/index-inventory.service';
import { IndexWriter } from '@app/shared/search/index-writer.service';
import { SEARCH_CLIENT } from '@app/shared/search/search.client';
import { StorageService } from '@app/shared/storage/storage.service';
import { DeletionLedger, LEDGER_PREFIX } from '@app/shared/video/deletion-ledger.service';
import { VideoRepository } from '@app/shared/video/video.repository';
import { rulesDigest } from '@app/shared/synonyms/synonym-set.repository';

/**
 * A worker context (`openWorkerContext`, the services a CLI command uses) with the ones tests
 * reach most often by name; `get` gives any other.
 */
export interface ServicesContext {
  config: AppConfig;
  get<T>(token: Type<T> | symbol): T;
  dataSource: DataSource;
  videos: VideoRepository;
  outbox: OutboxRepository;
  storage: StorageService;
  indexAdmin: IndexAdmin;
  indexWriter: IndexWriter;
  indexInventory: IndexInventory;
  ledger: DeletionLedger;
  close(): Promise<void>;
}

/** The services of `app`, opened on `config`, as a `ServicesContext`. */
export function servicesOf(app: INestApplicationContext, config: AppConfig): ServicesContext {
  return {
    config,
    get: <T>(token: Type<T> | symbol) => app.get<T>(token),
    dataSource: app.get(DataSource),
    videos: app.get(VideoRepository),
    outbox: app.get(OutboxRepository),
    storage: app.get(StorageService),
    indexAdmin: app.get(IndexAdmin),
    indexWriter: app.get(IndexWriter),
    indexInventory: app.get(IndexInventory),
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
  /** The API's wire to the index (searches alone or together), on the context's search client. */
  indexReads: IndexReads;
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
    indexReads: new IndexReads(context.get<Client>(SEARCH_CLIENT), config),
    async indexedIds() {
      await context.indexAdmin.refresh();
      const ids: string[] = [];
      for await (const batch of context.indexInventory.documentIdBatches()) ids.push(...batch);
      return ids;
    },
    async reset() {
      await context.dataSource.query('DELETE FROM erasures');
      await context.dataSource.query('DELETE FROM trash_operations');
      await context.dataSource.query('DELETE FROM webhook_deliveries');
      await context.dataSource.query('DELETE FROM outbox_events');
      await context.dataSource.query('DELETE FROM deletion_audit');
      await context.dataSource.query('DELETE FROM videos');
      // No synonyms: a set another suite saved would widen this one's searches.
      await context.dataSource.query(
        "UPDATE search_synonyms SET rules = '[]', digest = ?, version = version + 1 WHERE rules <> '[]'",
        [rulesDigest('[]')],
      );
      for (const index of await context.indexAdmin.versionedIndices())
        await context.indexAdmin.deleteIndex(index);
      await context.storage.ensureBucket();
      // The media, and the deletion ledger: a later reconcile would otherwise re-apply old deletions.
      for (const prefix of ['videos/', LEDGER_PREFIX]) {
        for await (const page of context.storage.listKeys(prefix)) await context.storage.deleteKeys(page);
      }
      await context.indexAdmin.ensureAlias();
    },
  };
}

/** Makes sure the test index and its alias exist, for a suite that searches but seeds nothing. */
export async function ensureTestIndex(): Promise<void> {
  const context = await openTestContext();
  try {
    await context.indexAdmin.ensureAlias();
  } finally {
    await context.close();
  }
}
