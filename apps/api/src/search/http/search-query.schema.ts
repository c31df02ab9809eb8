import { z } from 'zod';
import { parseDateBound } from '@app/shared/search/search-params';
import { boundedQuery, MAX_QUERY_WORDS } from '@app/shared/search/search-text';
import { commaItems } from '@app/shared/util/comma-items';
import {
  authorIdSchema,
  authorIdWire,
  charactersWithin,
  checkPageWindow,
  digits,
  documented,
  flag,
  integerWire,
  pagingFields,
} from '../../common/query-params';
import {
  FACET_SIZE,
  SEARCH_FACETS,
  SEARCH_SORTS,
  type SearchCriteria,
  type SearchFacet,
} from '../engine/search-criteria';
import { FRAGMENT_LENGTH, MAX_FRAGMENTS } from './search-highlighter';

const dateBound = (name: 'dateFrom' | 'dateTo') =>
  documented(
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
      }),
    `ISO 8601 date (2024-05-01) or date-time with optional fraction and offset (2024-05-01T10:00:00Z); ` +
      (name === 'dateFrom'
        ? 'videos published at or after it (a date: from 00:00:00 UTC that day)'
        : 'videos published at or before it (a date: that whole day, UTC)'),
    { type: 'string', minLength: 10, maxLength: 35 },
  );

/** A comma list of facet names, each at most once in the answer (`year,author`). */
const facetList = z
  .string()
  .transform((value, context) => {
    const names = commaItems(value);
    const unknown = names.filter((name) => !(SEARCH_FACETS as readonly string[]).includes(name));
    if (unknown.length > 0) {
      context.addIssue({
        code: 'custom',
        message: `facets must be a comma list of ${SEARCH_FACETS.join(', ')}; not ${unknown.map((name) => JSON.stringify(name)).join(', ')}`,
      });
      return z.NEVER;
    }
    return [...new Set(names)] as SearchFacet[];
  })
  .optional()
  .meta({
    description: `comma list of ${SEARCH_FACETS.join(', ')}: counts over all matches (top ${FACET_SIZE} each)`,
    wire: {
      type: 'string',
      pattern: `^ *(${SEARCH_FACETS.join('|')}) *( *, *(${SEARCH_FACETS.join('|')}) *)*$`,
    },
  });

/**
 * `q`: trimmed, 1–`max` characters, then cut to what a search reads (`boundedQuery`), so its work is
 * bounded whatever characters it holds.
 */
const queryText = (max: number, description: string) =>
  documented(
    z
      .string({ message: 'q is required' })
      .transform((value) => value.trim())
      .refine(charactersWithin(1, max), `q must be 1 to ${max} characters after trimming`)
      .transform(boundedQuery),
    `${description}; 1–${max} characters after trimming, matched by at most its first ${MAX_QUERY_WORDS} ` +
      'words once accents and compatibility forms are folded',
    { type: 'string', minLength: 1, maxLength: max },
  );

const highlightFlag = flag(
  'highlight',
  '`true`: each item gets `highlights`, its matched words in `<mark>` in HTML-escaped fragments',
);

/** A cursor is a short token; anything longer is no cursor this API handed out. */
const MAX_CURSOR_LENGTH = 4_096;

/** The query of `GET /api/videos/search` (docs/contract.md §7): validates, produces the 400 details, documents. */
export const searchQuerySchema = z
  .object({
    q: queryText(256, 'the words to find, as typed (never parsed as query syntax)'),
    authorId: documented(
      authorIdSchema.optional(),
      "only this author's videos: the id exactly, compared byte for byte",
      authorIdWire,
    ),
    dateFrom: dateBound('dateFrom'),
    dateTo: dateBound('dateTo'),
    ...pagingFields,
    sort: documented(
      z
        .enum(SEARCH_SORTS, { message: `sort must be one of ${SEARCH_SORTS.join(', ')}` })
        .optional()
        .transform((value) => value ?? 'relevance'),
      'the order: by relevance, or by publication date (newest or oldest first), then by id',
      { type: 'string', enum: [...SEARCH_SORTS], default: 'relevance' },
    ),
    cursor: documented(
      z
        .string()
        .refine(charactersWithin(1, MAX_CURSOR_LENGTH), 'cursor must be a nextCursor of a previous answer')
        .optional(),
      'the `nextCursor` of the previous page, to read the next one (not with `page`); opaque, valid 5 minutes',
      { type: 'string', minLength: 1, maxLength: MAX_CURSOR_LENGTH },
    ),
    highlight: highlightFlag,
    facets: facetList,
  })
  .superRefine((query, context) => {
    if (query.dateFrom && query.dateTo && query.dateFrom.exact > query.dateTo.exact) {
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

/** The parameters that page or present a search rather than select what it finds. */
type NotCriteria = 'page' | 'limit' | 'cursor' | 'highlight';

/**
 * The criteria each other parameter gives the engine. Typed over every parameter of the schema: one
 * added there is a compile error here until it is mapped (or named in `NotCriteria`), so a new
 * filter cannot be dropped on its way to the engine.
 */
const CRITERIA: {
  [K in Exclude<keyof SearchQuery, NotCriteria>]-?: (query: SearchQuery) => Partial<SearchCriteria>;
} = {
  q: ({ q }) => ({ q }),
  authorId: ({ authorId }) => ({ authorId }),
  dateFrom: ({ dateFrom }) => ({ from: dateFrom }),
  dateTo: ({ dateTo }) => ({ to: dateTo }),
  sort: ({ sort }) => ({ sort }),
  facets: ({ facets }) => (facets ? { facets } : {}),
};

/** What a search asks the engine for. */
export function criteriaOf(query: SearchQuery): SearchCriteria {
  return Object.assign({}, ...Object.values(CRITERIA).map((part) => part(query))) as SearchCriteria;
}

/** The fields a search's cost depends on, read by the same rules as the search itself. */
const costFields = z.object({ limit: pagingFields.limit, highlight: highlightFlag, facets: facetList });

/**
 * A search's cost against its caller's rate limit (docs/contract.md §4), by the work it asks of the
 * engine: a point per page of 20 results asked, twice that with highlights, and a point per facet.
 * The default search costs 1 point. A query the search will refuse costs 1.
 */
export function searchCost(query: unknown): number {
  const read = costFields.safeParse(query);
  if (!read.success) return 1;
  const { limit, highlight, facets } = read.data;
  return Math.ceil(limit / COST_PAGE) * (highlight ? 2 : 1) + (facets?.length ?? 0);
}

const COST_PAGE = 20;

/** The query of `GET /api/videos/suggest` (docs/contract.md §7.2). */
export const suggestQuerySchema = z.object({
  q: queryText(64, 'what the search box holds; its last word may be cut short'),
  limit: documented(
    digits('limit', 1, 20).transform((value) => value ?? 8),
    'suggestions at most',
    integerWire(1, 20, 8),
  ),
});

export type SuggestQuery = z.output<typeof suggestQuerySchema>;

/** The answer of a suggestion: titles of active videos, best first. */
export const suggestionsSchema = z.object({
  items: z.array(z.object({ id: z.string(), title: z.string() })),
});

const facetCounts = z.array(z.object({ value: z.string(), count: z.number().int() }));

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
      language: z.string().meta({
        description:
          'the language of the title and description, an ISO 639-3 code (`eng`, `spa`, `rus`…); `und` when undetermined',
      }),
      score: z.number().meta({ description: 'relevance; only comparable within one search' }),
      highlights: z
        .object({
          title: z.array(z.string()).optional().meta({ description: 'the whole title, marked' }),
          description: z
            .array(z.string())
            .optional()
            .meta({
              description: `up to ${MAX_FRAGMENTS} fragments of about ${FRAGMENT_LENGTH} characters`,
            }),
        })
        .optional()
        .meta({
          description:
            'with `highlight=true`: the fields whose words matched, each matched word in `<mark>`…`</mark>` and every other character HTML-escaped',
        }),
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
  facets: z
    .object({
      year: facetCounts.optional().meta({ description: 'publication years, as `2019`' }),
      author: facetCounts.optional().meta({ description: 'author ids' }),
    })
    .optional()
    .meta({ description: 'with `facets`: per facet asked for, the most frequent values among all matches' }),
  nextCursor: z.string().optional().meta({
    description: 'pass as `cursor` (with the same q and filters) for the next page; absent on the last page',
  }),
});

export type SearchPage = z.output<typeof searchPageSchema>;
export type SearchItem = SearchPage['items'][number];
