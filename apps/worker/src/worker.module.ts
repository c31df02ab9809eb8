import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { APP_CONFIG } from '@app/shared/config/config.module';
import type { AppConfig } from '@app/shared/config/config.schema';
import { HealthModule } from '@app/shared/health/health.module';
import { ProblemDetailsFilter } from '@app/shared/http/problem.filter';
import { InfrastructureModule } from '@app/shared/infrastructure.module';
import { LoggingModule } from '@app/shared/logging/logging.module';
import { QUEUES } from '@app/shared/queue/queues';
import { bullConnection } from '@app/shared/redis/redis';

@Module({
  imports: [
    LoggingModule,
    InfrastructureModule,
    HealthModule,
    BullModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({ connection: bullConnection(config.REDIS_URL) }),
    }),
    BullModule.registerQueue(...Object.values(QUEUES).map((name) => ({ name }))),
  ],
  providers: [{ provide: APP_FILTER, useClass: ProblemDetailsFilter }],
})
export class WorkerModule {}
