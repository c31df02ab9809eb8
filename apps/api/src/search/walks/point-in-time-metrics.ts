import { Inject, Injectable } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { APP_CONFIG } from '@app/shared/config/config.module';
import type { AppConfig } from '@app/shared/config/config.schema';
import { MetricsService } from '@app/shared/metrics/metrics.service';
import { StoredMetrics } from '@app/shared/metrics/stored-metrics';
import { PointInTimeLeases } from './point-in-time-leases';

/**
 * The cursor walks' points in time as an operator watches them: how many are held, all callers and
 * API processes together, read from Redis with the other stored metrics, beside the ceiling that
 * refuses the next one (SEARCH_PIT_MAX_OPEN). Every API process exports the same count.
 */
@Injectable()
export class PointInTimeMetrics {
  constructor(
    metrics: MetricsService,
    stored: StoredMetrics,
    leases: PointInTimeLeases,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    const registers = [metrics.registry];
    const ceiling = new Gauge({
      name: 'search_points_in_time_max',
      help: 'The most points in time cursor walks may hold at once, all callers together (SEARCH_PIT_MAX_OPEN); API only',
      registers,
    });
    ceiling.set(config.SEARCH_PIT_MAX_OPEN);
    const held = new Gauge({
      name: 'search_points_in_time_held',
      help: 'Points in time held (or being opened) by cursor walks, all callers and API processes together, read from Redis; API only',
      registers,
    });
    stored.add({
      metrics: ['search_points_in_time_held'],
      async read() {
        held.set(await leases.held());
      },
    });
  }
}
