import type { estypes } from '@elastic/elasticsearch';
import { VideoState } from '@app/shared/video/video-state';

/** Hits per page, for the API and every baseline alike. */
export const PAGE = 20;

/**
 * The baseline a user would pick instead of this API: one `multi_match` over the title (weighted
 * three times) and the description, active videos only, and the engine's defaults for the rest
 * (hits with their `_source`, the total counted up to 10,000). Deliberately plain.
 */
export function plainBody(q: string): estypes.SearchRequest {
  return {
    query: {
      bool: {
        must: { multi_match: { query: q, fields: ['title^3', 'description'] } },
        filter: { term: { state: VideoState.Active } },
      },
    },
    size: PAGE,
  };
}
