import { z } from 'zod';
import { parseDateBound } from '@app/shared/search/search-params';
import { SEARCH_SORTS } from '@app/shared/search/search-query.builder';
import { authorIdSchema, charactersWithin, checkPageWindow, pagingFields } from '../common/query-params';

const dateBound = (name: 'dateFrom' | 'dateTo') =>
  z
    .string()
    .optional()
    .transform((value, context) => {
      if (value === undefined) return undefined;
      const date = parseDateBound(value, name === 'dateFrom' ? 'from' : 'to');
      if (!date) {
        context.addIssue({
          code: 'custom',
          message: `${name} must be an ISO 8601 date (2024-05-01) or date-time (2024-05-01T10:00:00Z)`,
        });
        return z.NEVER;
      }
      return date;
    });

/** The query of `GET /api/videos/search` (docs/contract.md §7): validates, produces the 400 details, documents. */
export const searchQuerySchema = z
  .object({
    q: z
      .string({ message: 'q is required' })
      .transform((value) => value.trim())
      .refine(charactersWithin(1, 256), 'q must be 1 to 256 characters after trimming'),
    authorId: authorIdSchema.optional(),
    dateFrom: dateBound('dateFrom'),
    dateTo: dateBound('dateTo'),
    ...pagingFields,
    sort: z
      .enum(SEARCH_SORTS, { message: `sort must be one of ${SEARCH_SORTS.join(', ')}` })
      .optional()
      .transform((value) => value ?? 'relevance'),
    cursor: z
      .string()
      .refine(charactersWithin(1, 4_096), 'cursor must be a nextCursor of a previous answer')
      .optional(),
  })
  .superRefine((query, context) => {
    if (query.dateFrom && query.dateTo && query.dateFrom > query.dateTo) {
      context.addIssue({ code: 'custom', path: ['dateFrom'], message: 'dateFrom must not be after dateTo' });
    }
    if (query.cursor !== undefined && query.page !== undefined) {
      context.addIssue({
        code: 'custom',
        path: ['page'],
        message: 'page must not be given with cursor: the cursor says which page comes next',
      });
    } else {
      checkPageWindow(
        query,
        context,
        'to read further, follow nextCursor from page to page (pass it as cursor), which walks every result',
      );
    }
  });

export type SearchQuery = z.output<typeof searchQuerySchema>;

/** The answer of a search (docs/contract.md §7). */
export const searchPageSchema = z.object({
  items: z.array(
    z.object({
      id: z.string(),
      title: z.string(),
      description: z.string(),
      authorId: z.string(),
      publishedAt: z.string().nullable().meta({ description: 'ISO 8601 UTC' }),
      tags: z.array(z.string()),
      score: z.number().meta({ description: 'relevance; only comparable within one search' }),
    }),
  ),
  page: z.number().int(),
  limit: z.number().int(),
  total: z.number().int().meta({
    description:
      'number of matching videos: exact up to 10,000, then a lower bound (see totalRelation); a video deleted a moment ago may still count on other pages',
  }),
  totalRelation: z
    .enum(['eq', 'gte'])
    .meta({ description: '`eq`: total is exact; `gte`: there are at least total' }),
  totalPages: z.number().int(),
  nextCursor: z.string().optional().meta({
    description: 'pass as `cursor` (with the same q and filters) for the next page; absent on the last page',
  }),
});

export type SearchPage = z.output<typeof searchPageSchema>;
export type SearchItem = SearchPage['items'][number];
