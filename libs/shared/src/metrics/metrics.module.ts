import { Module } from '@nestjs/common';
import { MetricsController } from './metrics.controller';
import { MetricsService } from './metrics.service';
import { StoredMetrics } from './stored-metrics';

@Module({
  controllers: [MetricsController],
  providers: [MetricsService, StoredMetrics],
  exports: [MetricsService],
})
export class MetricsModule {}
