import { Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { HealthModule } from '@app/shared/health/health.module';
import { ProblemDetailsFilter } from '@app/shared/http/problem.filter';
import { InfrastructureModule } from '@app/shared/infrastructure.module';
import { LoggingModule } from '@app/shared/logging/logging.module';
import { MetricsController } from '@app/shared/metrics/metrics.controller';
import { MetricsModule } from '@app/shared/metrics/metrics.module';
import { DeleteVideoHandler } from './deletion/delete-video.handler';
import { EraseAuthorHandler } from './erasure/erase-author.handler';
import { IndexShapeService } from './index/index-shape.service';
import { ReconcileIndexHandler } from './index/reconcile-index.handler';
import { ReindexHandler } from './index/reindex.handler';
import { SyncVideoHandler } from './index/sync-video.handler';
import { JOB_HANDLERS } from './jobs/job-handler';
import { JobRunner } from './jobs/job-runner.service';
import { OrphanSweepHandler } from './sweeps/orphan-sweep.handler';
import { PurgeSweepHandler } from './sweeps/purge-sweep.handler';
import { ErasureSweepHandler } from './sweeps/erasure-sweep.handler';
import { OutboxPruneHandler } from './sweeps/outbox-prune.handler';
import { TrashSweepHandler } from './sweeps/trash-sweep.handler';
import { TrashOperationHandler } from './trash/trash-operation.handler';
import { DeliverWebhookHandler } from './webhooks/deliver-webhook.handler';
import { WebhookSweepHandler } from './webhooks/webhook-sweep.handler';

const HANDLERS = [
  DeleteVideoHandler,
  SyncVideoHandler,
  ReindexHandler,
  ReconcileIndexHandler,
  PurgeSweepHandler,
  EraseAuthorHandler,
  ErasureSweepHandler,
  OrphanSweepHandler,
  DeliverWebhookHandler,
  WebhookSweepHandler,
  OutboxPruneHandler,
  TrashOperationHandler,
  TrashSweepHandler,
];

@Module({
  imports: [LoggingModule, InfrastructureModule, HealthModule, MetricsModule],
  // Scraped on the worker's one port, beside its probes (docs/contract.md §9).
  controllers: [MetricsController],
  providers: [
    ...HANDLERS,
    { provide: JOB_HANDLERS, inject: HANDLERS, useFactory: (...handlers: unknown[]) => handlers },
    JobRunner,
    IndexShapeService,
    { provide: APP_FILTER, useClass: ProblemDetailsFilter },
  ],
})
export class WorkerModule {}
