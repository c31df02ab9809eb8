import { Module } from '@nestjs/common';
import { MetricsService } from './metrics.service';
import { StoredMetrics } from './stored-metrics';

/**
 * The registry and the metrics read from the stores. Where a process serves them is its own
 * choice: the worker on its one port (`MetricsController`), the API on a port apart from its
 * public one (`apps/api/src/metrics-port.ts`).
 */
@Module({
  providers: [MetricsService, StoredMetrics],
  exports: [MetricsService, StoredMetrics],
})
export class MetricsModule {}
