import { Controller, Get, Query } from '@nestjs/common';
import { ZodValidationPipe } from '@app/shared/http/zod-validation.pipe';
import { searchQuerySchema, type SearchPage, type SearchQuery } from './search-query.schema';
import { VideoSearchService } from './video-search.service';

@Controller('api/videos')
export class SearchController {
  constructor(private readonly searchService: VideoSearchService) {}

  @Get('search')
  search(@Query(new ZodValidationPipe(searchQuerySchema)) query: SearchQuery): Promise<SearchPage> {
    return this.searchService.search(query);
  }
}
