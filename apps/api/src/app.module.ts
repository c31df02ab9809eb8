import { Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { ConfigModule } from '@app/shared/config/config.module';
import { HealthModule } from '@app/shared/health/health.module';
import { ProblemDetailsFilter } from '@app/shared/http/problem.filter';
import { InfrastructureModule } from '@app/shared/infrastructure.module';
import { LoggingModule } from '@app/shared/logging/logging.module';
import { MetricsModule } from '@app/shared/metrics/metrics.module';
import { TelemetryModule } from '@app/shared/telemetry/telemetry.module';
import { AuthModule } from './auth/auth.module';
import { ErasureModule } from './erasure/erasure.module';
import { SearchModule } from './search/search.module';
import { SynonymsModule } from './synonyms/synonyms.module';
import { VideoModule } from './video/video.module';

@Module({
  imports: [
    ConfigModule.forRoot(),
    LoggingModule,
    TelemetryModule,
    InfrastructureModule,
    HealthModule,
    MetricsModule,
    AuthModule,
    SearchModule,
    SynonymsModule,
    VideoModule,
    ErasureModule,
  ],
  providers: [{ provide: APP_FILTER, useClass: ProblemDetailsFilter }],
})
export class AppModule {}
