import { Module } from '@nestjs/common';
import { APP_CONFIG } from '@app/shared/config/config.module';
import type { AppConfig } from '@app/shared/config/config.schema';
import { MetricsModule } from '@app/shared/metrics/metrics.module';
import { REDIS_CLIENT, type RedisClient } from '@app/shared/redis/redis';
import { ActiveVideos } from './active-videos';
import { CursorWalks } from './cursor-walks';
import { IndexReads } from './engine/index-reads';
import { CURSOR_TTL_MS, SearchEngine } from './engine/search-engine';
import { PointInTimeLeases } from './point-in-time-leases';
import { SearchController } from './search.controller';
import { VideoSearchService } from './video-search.service';

@Module({
  imports: [MetricsModule],
  controllers: [SearchController],
  providers: [
    IndexReads,
    SearchEngine,
    ActiveVideos,
    VideoSearchService,
    {
      provide: CursorWalks,
      inject: [SearchEngine, REDIS_CLIENT, APP_CONFIG],
      useFactory: (engine: SearchEngine, redis: RedisClient, config: AppConfig) =>
        new CursorWalks(
          engine,
          new PointInTimeLeases(redis, CURSOR_TTL_MS, {
            all: config.SEARCH_PIT_MAX_OPEN,
            perCaller: config.SEARCH_PIT_MAX_PER_CALLER,
          }),
        ),
    },
  ],
})
export class SearchModule {}
