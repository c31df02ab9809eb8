import { Controller, Header, Query } from '@nestjs/common';
import { json, problem, Route, unavailable } from '@app/shared/http/route-doc';
import { ZodValidationPipe } from '../../common/zod-validation.pipe';
import type { Actor } from '@app/shared/video/video-lifecycle';
import { CurrentUser } from '../../auth/current-user.decorator';
import { RequestCost } from '../../auth/request-cost';
import {
  searchCost,
  searchPageSchema,
  searchQuerySchema,
  suggestionsSchema,
  suggestQuerySchema,
  type SearchQuery,
  type SuggestQuery,
} from './search-query.schema';
import { VideoSearchService } from './video-search.service';

@Controller('api/videos')
export class SearchController {
  constructor(private readonly searchService: VideoSearchService) {}

  /** The service renders the JSON itself (see `search-page.renderer.ts`). */
  @Route({
    method: 'get',
    path: 'search',
    operationId: 'listVideoSearch',
    tag: 'videos',
    summary: 'Search active videos',
    description:
      'Full-text search over the titles, descriptions, tags, speakers and events of active videos, in any ' +
      'inflection, with or without accents, the last word also as the start of a title word; ranked by ' +
      'relevance or date, filtered by author and publication date, one page at a time or by cursor, with ' +
      'highlights and facets on request (docs/contract.md §7, §7.1).',
    security: 'bearer',
    query: searchQuerySchema,
    responses: {
      200: { description: 'a page of results', json: json('VideoSearchPage', searchPageSchema) },
      400: problem('invalid parameters: each is named in `errors`'),
      429: {
        description:
          'a `cursor` page that would open a point in time past a ceiling: this caller holds ' +
          '`SEARCH_PIT_MAX_PER_CALLER` cursor walks, or all callers together `SEARCH_PIT_MAX_OPEN` ' +
          '(docs/contract.md §7); a search by page number is never refused so',
        problem: true,
        headers: { 'Retry-After': 'seconds until a held walk lapses at the latest' },
      },
      503: unavailable('Search'),
    },
  })
  @RequestCost(searchCost)
  @Header('Content-Type', 'application/json; charset=utf-8')
  search(
    @Query(new ZodValidationPipe(searchQuerySchema)) query: SearchQuery,
    @CurrentUser() user: Actor,
  ): Promise<Buffer> {
    return this.searchService.search(query, user.sub);
  }

  @Route({
    method: 'get',
    path: 'suggest',
    operationId: 'listVideoSuggestions',
    tag: 'videos',
    summary: 'Complete a title as it is typed',
    description:
      'Titles of active videos that hold every word of `q`, the last one as the start of a word, best ' +
      'first: for a search box (docs/contract.md §7.2).',
    security: 'bearer',
    query: suggestQuerySchema,
    responses: {
      200: { description: 'the suggestions', json: json('VideoSuggestions', suggestionsSchema) },
      400: problem('invalid parameters: each is named in `errors`'),
      503: unavailable('Search'),
    },
  })
  suggest(@Query(new ZodValidationPipe(suggestQuerySchema)) query: SuggestQuery) {
    return this.searchService.suggest(query);
  }
}
