import type { Client } from '@elastic/elasticsearch';
import { Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { APP_CONFIG } from './config/config.module';
import type { AppConfig } from './config/config.schema';
import { dataSourceOptions } from './data-source';
import { closeRedisClient, createRedisClient, REDIS_CLIENT, type RedisClient } from './redis/redis';
import { RedisHealth } from './redis/redis-health';
import { RedisRateLimits } from './redis/redis-rate-limits';
import { RedisScripts } from './redis/redis-scripts';
import { RedisStreams } from './redis/redis-streams';
import { createSearchClient, SEARCH_CLIENT } from './search/search.client';
import { IndexAdmin } from './search/index-admin.service';
import { IndexInventory } from './search/index-inventory.service';
import { IndexWriter } from './search/index-writer.service';
import { StorageService } from './storage/storage.service';
import { StorageCleaner } from './storage/storage-cleaner';
import { JobQueues } from './queue/job-queues.service';
import { OutboxRepository } from './events/outbox.repository';
import { OutboxService } from './events/outbox.service';
import { OutboxRetentionRepository } from './events/outbox-retention.repository';
import { OutboxRetentionService } from './events/outbox-retention.service';
import { WebhookClient } from './events/webhook.client';
import { WebhookDeliveryService } from './events/webhook-delivery.service';
import { WebhookSigner } from './events/webhook-signer';
import { VideoIndexSyncService } from './video/video-index-sync.service';
import { VideoLifecycleService } from './video/video-lifecycle.service';
import { VideoPurgeService } from './video/video-purge.service';
import { VideoChangeFeed } from './video/video-change-feed';
import { VideoRepository } from './video/video.repository';
import { DeletionAuditRepository } from './video/deletion-audit.repository';
import { DeletionLedger } from './video/deletion-ledger.service';
import { DeletionReceiptService } from './video/deletion-receipt.service';
import { TrashService } from './video/trash.service';
import { ErasureRepository } from './erasure/erasure.repository';
import { ErasureService } from './erasure/erasure.service';
import { ErasureWorkService } from './erasure/erasure-work.service';
import { TrashOperationRepository } from './trash/trash-operation.repository';
import { TrashOperationService } from './trash/trash-operation.service';
import { TrashOperationWorkService } from './trash/trash-operation-work.service';
import { VideoBatchCommands } from './video/video-batch-commands.service';
import { VideoBatchRepository } from './video/video-batch.repository';

/** The domain services both processes use, built on those connections. */
const SERVICES = [
  RedisHealth,
  RedisRateLimits,
  RedisScripts,
  RedisStreams,
  IndexAdmin,
  IndexWriter,
  IndexInventory,
  StorageService,
  StorageCleaner,
  VideoChangeFeed,
  VideoRepository,
  DeletionAuditRepository,
  DeletionReceiptService,
  VideoBatchRepository,
  VideoBatchCommands,
  TrashService,
  ErasureRepository,
  ErasureService,
  ErasureWorkService,
  TrashOperationRepository,
  TrashOperationService,
  TrashOperationWorkService,
  OutboxRepository,
  OutboxService,
  OutboxRetentionRepository,
  OutboxRetentionService,
  WebhookClient,
  WebhookSigner,
  WebhookDeliveryService,
  JobQueues,
  VideoIndexSyncService,
  VideoLifecycleService,
  DeletionLedger,
  VideoPurgeService,
];

/** The connections to MySQL, Redis, Elasticsearch and S3 that both processes share (on `ConfigModule`'s configuration). */
@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        ...dataSourceOptions(config),
        retryAttempts: 3,
        retryDelay: 1_000,
      }),
    }),
  ],
  providers: [
    {
      provide: REDIS_CLIENT,
      inject: [APP_CONFIG],
      useFactory: (c: AppConfig) => createRedisClient(c),
    },
    { provide: SEARCH_CLIENT, inject: [APP_CONFIG], useFactory: (c: AppConfig) => createSearchClient(c) },
    ...SERVICES,
  ],
  // The Redis client goes to no other module: its users have the operations of its owner
  // (libs/shared/src/redis) instead. The Elasticsearch client goes only to the index's owners:
  // IndexAdmin, IndexWriter and IndexInventory here, and the API's search engine
  // (apps/api/src/search/engine), which reads.
  exports: [SEARCH_CLIENT, ...SERVICES],
})
export class InfrastructureModule implements OnApplicationShutdown {
  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: RedisClient,
    @Inject(SEARCH_CLIENT) private readonly search: Client,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await closeRedisClient(this.redis);
    await this.search.close();
  }
}
