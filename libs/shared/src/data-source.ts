import { createConnection } from 'mysql2';
import { DataSource, type DataSourceOptions } from 'typeorm';
import type { AppConfig } from './config/config.schema';
import { ErasureEntity } from './erasure/erasure.entity';
import { OutboxEventEntity } from './events/outbox-event.entity';
import { WebhookDeliveryEntity } from './events/webhook-delivery.entity';
import { DeletionAuditEntity } from './video/deletion-audit.entity';
import { VideoEntity } from './video/video.entity';
import { Init1763683200000 } from './database/migrations/1763683200000-init';
import { DeletionRequest1763769600000 } from './database/migrations/1763769600000-deletion-request';
import { AsciiIds1795219200000 } from './database/migrations/1795219200000-ascii-ids';
import { SpeakersEvent1795305600000 } from './database/migrations/1795305600000-speakers-event';
import { Outbox1795348800000 } from './database/migrations/1795348800000-outbox';
import { TrashErasuresReceipts1795392000000 } from './database/migrations/1795392000000-trash-erasures-receipts';
import { SearchCheckIndex1795478400000 } from './database/migrations/1795478400000-search-check-index';
import { ExactIdentities1795564800000 } from './database/migrations/1795564800000-exact-identities';
import { OutboxRetention1795651200000 } from './database/migrations/1795651200000-outbox-retention';
import { WebhookEndpointsShown1795737600000 } from './database/migrations/1795737600000-webhook-endpoints-shown';
import { TrashOperations1795824000000 } from './database/migrations/1795824000000-trash-operations';
import { TrashOperationEntity } from './trash/trash-operation.entity';
import { WebhookSweepIndex1795910400000 } from './database/migrations/1795910400000-webhook-sweep-index';
import { AuditPurgedAtIndex1795996800000 } from './database/migrations/1795996800000-audit-purged-at-index';
import { VideoLanguage1796083200000 } from './database/migrations/1796083200000-video-language';
import { SearchSynonyms1796126400000 } from './database/migrations/1796126400000-search-synonyms';
import { SynonymSetEntity } from './synonyms/synonym-set.entity';

export const ENTITIES = [
  VideoEntity,
  DeletionAuditEntity,
  OutboxEventEntity,
  WebhookDeliveryEntity,
  ErasureEntity,
  TrashOperationEntity,
  SynonymSetEntity,
];
export const MIGRATIONS = [
  Init1763683200000,
  DeletionRequest1763769600000,
  AsciiIds1795219200000,
  SpeakersEvent1795305600000,
  Outbox1795348800000,
  TrashErasuresReceipts1795392000000,
  SearchCheckIndex1795478400000,
  ExactIdentities1795564800000,
  OutboxRetention1795651200000,
  WebhookEndpointsShown1795737600000,
  TrashOperations1795824000000,
  WebhookSweepIndex1795910400000,
  AuditPurgedAtIndex1795996800000,
  VideoLanguage1796083200000,
  SearchSynonyms1796126400000,
];

export function dataSourceOptions(config: Pick<AppConfig, 'DATABASE_URL'>): DataSourceOptions {
  return {
    type: 'mysql',
    url: config.DATABASE_URL,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    // Schema changes only ever happen through migrations.
    synchronize: false,
    migrationsRun: false,
    timezone: 'Z',
    charset: 'utf8mb4_unicode_ci',
    poolSize: 10,
    connectTimeout: 5_000,
    // mysql2 otherwise captures a stack trace on every query, for error messages only.
    extra: { trace: false },
  };
}

export function databaseName(databaseUrl: string): string {
  const name = decodeURIComponent(new URL(databaseUrl).pathname.replace(/^\//, ''));
  if (!/^[A-Za-z0-9_$]{1,64}$/.test(name)) {
    throw new Error(`DATABASE_URL must name a database (letters, digits, _ or $), got "${name}"`);
  }
  return name;
}

/**
 * Creates the database named by DATABASE_URL if it does not exist yet.
 *
 * Through a plain connection's `.promise()`, never `mysql2/promise`: TypeORM calls `.promise()` on
 * every query, and mysql2 requires its promise wrapper's module inside that call. Node answers a
 * repeated `require` from its cache of resolutions only for the caller that loaded the module
 * first; once `mysql2/promise` has loaded it, every query resolves the module from disk again
 * (test/e2e/hot-path-modules.test.ts, and ESLint forbids the import).
 */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = databaseName(databaseUrl);
  const connection = createConnection({
    host: url.hostname,
    port: url.port ? Number(url.port) : 3306,
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
  }).promise();
  try {
    await connection.query(
      `CREATE DATABASE IF NOT EXISTS \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
    );
  } finally {
    await connection.end();
  }
}

/** Creates the database if needed and applies pending migrations; returns the names applied. */
export async function migrate(config: Pick<AppConfig, 'DATABASE_URL'>): Promise<string[]> {
  await ensureDatabase(config.DATABASE_URL);
  const dataSource = new DataSource(dataSourceOptions(config));
  await dataSource.initialize();
  try {
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((migration) => migration.name);
  } finally {
    await dataSource.destroy();
  }
}
