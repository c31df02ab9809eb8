import { Module } from '@nestjs/common';
import { MetricsModule } from '@app/shared/metrics/metrics.module';
import { SearchController } from './search.controller';
import { SearchRanking } from './search-ranking';
import { VideoSearchService } from './video-search.service';

@Module({
  imports: [MetricsModule],
  controllers: [SearchController],
  providers: [SearchRanking, VideoSearchService],
})
export class SearchModule {}
