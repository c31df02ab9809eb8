import { LEDGER_PREFIX } from '@app/shared/video/deletion-ledger.service';
import { loadConfig } from '@app/shared/config/load-config';
import type { AppConfig } from '@app/shared/config/config.schema';
import { createSearchClient } from '@app/shared/search/search.client';
import { IndexReads } from '../../apps/api/src/search/engine/index-reads';
import { openCliContext, type CliContext } from '../../apps/worker/src/cli/cli-context';

export interface TestContext extends CliContext {
  config: AppConfig;
  /** Empties the test database, the test index and the test bucket. */
  reset(): Promise<void>;
  /** Every key in the test bucket under `videos/`. */
  allMediaKeys(): Promise<string[]>;
  /** Ids of every document in the index behind the alias. */
  indexedIds(): Promise<string[]>;
  /** The API's wire to the index (searches alone or together), on a client of the test's own. */
  indexReads: IndexReads;
}

/** The test environment, with `env` overriding it (a test's own MySQL or Elasticsearch). */
export async function openTestContext(env: Record<string, string> = {}): Promise<TestContext> {
  const config = loadConfig({ ...process.env, ...env });
  const context = await openCliContext(config);
  const readsClient = createSearchClient(config);
  const allMediaKeys = async () => {
    const keys: string[] = [];
    for await (const page of context.storage.listKeys('videos/')) keys.push(...page);
    return keys;
  };
  return {
    ...context,
    config,
    allMediaKeys,
    indexReads: new IndexReads(readsClient, config),
    async close() {
      await readsClient.close();
      await context.close();
    },
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
