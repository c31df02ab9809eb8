import { Module } from '@nestjs/common';
import { APP_CONFIG } from '@app/shared/config/config.module';
import type { AppConfig } from '@app/shared/config/config.schema';
import { MetricsModule } from '@app/shared/metrics/metrics.module';
import { SynonymsModule } from '../synonyms/synonyms.module';
import { RedisScripts } from '@app/shared/redis/redis-scripts';
import { ActiveVideos } from './active/active-videos';
import { CursorWalks } from './walks/cursor-walks';
import { IndexReads } from './engine/index-reads';
import { CURSOR_TTL_MS, SearchEngine } from './engine/search-engine';
import { PointInTimeLeases } from './walks/point-in-time-leases';
import { PointInTimeMetrics } from './walks/point-in-time-metrics';
import { SearchController } from './http/search.controller';
import { VideoSearchService } from './http/video-search.service';

@Module({
  imports: [MetricsModule, SynonymsModule],
  controllers: [SearchController],
  providers: [
    IndexReads,
    SearchEngine,
    ActiveVideos,
    VideoSearchService,
    {
      provide: PointInTimeLeases,
      inject: [RedisScripts, APP_CONFIG],
      useFactory: (redis: RedisScripts, config: AppConfig) =>
        new PointInTimeLeases(redis, CURSOR_TTL_MS, {
          all: config.SEARCH_PIT_MAX_OPEN,
          perCaller: config.SEARCH_PIT_MAX_PER_CALLER,
        }),
    },
    {
      provide: CursorWalks,
      inject: [SearchEngine, PointInTimeLeases],
      useFactory: (engine: SearchEngine, leases: PointInTimeLeases) => new CursorWalks(engine, leases),
    },
    PointInTimeMetrics,
  ],
})
export class SearchModule {}
