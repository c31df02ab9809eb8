import { Module, type OnApplicationBootstrap } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { ConfigModule } from '@app/shared/config/config.module';
import { HealthModule } from '@app/shared/health/health.module';
import { ProblemDetailsFilter } from '@app/shared/http/problem.filter';
import { LoggingModule } from '@app/shared/logging/logging.module';
import { MetricsController } from '@app/shared/metrics/metrics.controller';
import { MetricsModule } from '@app/shared/metrics/metrics.module';
import { TelemetryModule } from '@app/shared/telemetry/telemetry.module';
import { IndexShapeService } from './index/index-shape.service';
import { JobRunner } from './jobs/job-runner.service';
import { HANDLER_PROVIDERS } from './jobs/registry';
import { WorkerCoreModule } from './worker-core.module';

/**
 * The worker process: the core, the handlers of the jobs that are asked for with its job runner
 * (`HANDLER_PROVIDERS`), and health and metrics on its port.
 */
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
  providers: [...HANDLER_PROVIDERS, JobRunner, { provide: APP_FILTER, useClass: ProblemDetailsFilter }],
})
export class WorkerModule implements OnApplicationBootstrap {
  constructor(private readonly shape: IndexShapeService) {}

  /** A new ELASTICSEARCH_REPLICAS takes effect when a worker starts. */
  onApplicationBootstrap(): void {
    this.shape.applyInBackground();
  }
}
