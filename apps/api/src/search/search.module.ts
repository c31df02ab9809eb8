import { Module } from '@nestjs/common';
import { SearchController } from './search.controller';
import { VideoSearchService } from './video-search.service';

@Module({
  controllers: [SearchController],
  providers: [VideoSearchService],
})
export class SearchModule {}
