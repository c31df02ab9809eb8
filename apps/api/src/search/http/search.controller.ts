import { Controller, Get, Header, Query } from '@nestjs/common';
import { ZodValidationPipe } from '../../common/zod-validation.pipe';
import type { Actor } from '@app/shared/video/video-lifecycle';
import { CurrentUser } from '../../auth/current-user.decorator';
import { RequestCost } from '../../auth/request-cost';
import {
  searchCost,
  searchQuerySchema,
  suggestQuerySchema,
  type SearchQuery,
  type SuggestQuery,
} from './search-query.schema';
import { VideoSearchService } from './video-search.service';

@Controller('api/videos')
export class SearchController {
  constructor(private readonly searchService: VideoSearchService) {}

  /** The service renders the JSON itself (see `search-page.renderer.ts`). */
  @Get('search')
  @RequestCost(searchCost)
  @Header('Content-Type', 'application/json; charset=utf-8')
  search(
    @Query(new ZodValidationPipe(searchQuerySchema)) query: SearchQuery,
    @CurrentUser() user: Actor,
  ): Promise<Buffer> {
    return this.searchService.search(query, user.sub);
  }

  @Get('suggest')
  suggest(@Query(new ZodValidationPipe(suggestQuerySchema)) query: SuggestQuery) {
    return this.searchService.suggest(query);
  }
}
