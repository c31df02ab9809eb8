import { z } from 'zod';
import { MAX_RESULT_WINDOW, parseDateBound } from '@app/shared/search/search-params';
import { SEARCH_SORTS } from '@app/shared/search/search-query.builder';

const rangeMessage = (name: string, min: number, max: number) =>
  Number.isFinite(max)
    ? `${name} must be an integer from ${min} to ${max}`
    : `${name} must be an integer of at least ${min}`;

/** Digits only, any number of them (`007` is 7); a page too large to count fails the window check. */
const digits = (name: string, min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, rangeMessage(name, min, max))
    .transform(Number)
    .refine((value) => value >= min && value <= max, rangeMessage(name, min, max))
    .optional();

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

/** A length check in characters (code points): an emoji counts once, not as its two UTF-16 units. */
const charactersWithin = (min: number, max: number) => (value: string) => {
  const characters = [...value].length;
  return characters >= min && characters <= max;
};

/** The query of `GET /api/videos/search` (docs/contract.md §7): validates, produces the 400 details, documents. */
export const searchQuerySchema = z
  .object({
    q: z
      .string({ message: 'q is required' })
      .transform((value) => value.trim())
      .refine(charactersWithin(1, 256), 'q must be 1 to 256 characters after trimming'),
    authorId: z.string().refine(charactersWithin(1, 128), 'authorId must be 1 to 128 characters').optional(),
    dateFrom: dateBound('dateFrom'),
    dateTo: dateBound('dateTo'),
    page: digits('page', 1, Infinity),
    limit: digits('limit', 1, 100).transform((value) => value ?? 20),
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
    } else if ((query.page ?? 1) * query.limit > MAX_RESULT_WINDOW) {
      context.addIssue({
        code: 'custom',
        path: ['page'],
        message: `page × limit must not exceed ${MAX_RESULT_WINDOW}: to read further, follow nextCursor from page to page (pass it as cursor), which walks every result`,
      });
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
      speakers: z.array(z.string()).meta({ description: 'names of the people in the video' }),
      event: z.string().nullable().meta({ description: 'the event or channel the video belongs to' }),
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
