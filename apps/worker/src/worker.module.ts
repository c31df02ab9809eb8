import { Module, type OnApplicationBootstrap } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { ConfigModule } from '@app/shared/config/config.module';
import { HealthModule } from '@app/shared/health/health.module';
import { ProblemDetailsFilter } from '@app/shared/http/problem.filter';
import { LoggingModule } from '@app/shared/logging/logging.module';
import { MetricsController } from '@app/shared/metrics/metrics.controller';
import { MetricsModule } from '@app/shared/metrics/metrics.module';
import { TelemetryModule } from '@app/shared/telemetry/telemetry.module';
import { DeleteVideoHandler } from './deletion/delete-video.handler';
import { EraseAuthorHandler } from './erasure/erase-author.handler';
import { IndexShapeService } from './index/index-shape.service';
import { ReindexHandler } from './index/reindex.handler';
import { SyncVideoHandler } from './index/sync-video.handler';
import { JOB_HANDLERS } from './jobs/job-handler';
import { JobRunner } from './jobs/job-runner.service';
import { TrashOperationHandler } from './trash/trash-operation.handler';
import { DeliverWebhookHandler } from './webhooks/deliver-webhook.handler';
import { WorkerCoreModule } from './worker-core.module';

/** A handler per job that is asked for; the sweeps' handlers come with `SWEEPS`. */
const HANDLERS = [
  DeleteVideoHandler,
  SyncVideoHandler,
  ReindexHandler,
  EraseAuthorHandler,
  DeliverWebhookHandler,
  TrashOperationHandler,
];

/** The worker process: the core, its job runner, and health and metrics on its port. */
@Module({
  imports: [
    ConfigModule.forRoot(),
    LoggingModule,
    TelemetryModule,
    WorkerCoreModule,
    HealthModule,
    MetricsModule,
  ],
  // Scraped on the worker's one port, beside its probes (docs/contract.md §9).
  controllers: [MetricsController],
  providers: [
    ...HANDLERS,
    { provide: JOB_HANDLERS, inject: HANDLERS, useFactory: (...handlers: unknown[]) => handlers },
    JobRunner,
    { provide: APP_FILTER, useClass: ProblemDetailsFilter },
  ],
})
export class WorkerModule implements OnApplicationBootstrap {
  constructor(private readonly shape: IndexShapeService) {}

  /** A new ELASTICSEARCH_REPLICAS takes effect when a worker starts. */
  onApplicationBootstrap(): void {
    this.shape.applyInBackground();
  }
}
