import { z } from 'zod';
import { authorIdSchema, authorIdWire, documented, flag, operationIdSchema } from '../common/query-params';
import { deleteQuerySchema } from '../video/video-params.schema';

/** The `{authorId}` path parameter. */
export const authorParamsSchema = z.object({
  authorId: documented(
    authorIdSchema,
    'the author whose videos are erased: exactly as in their token `sub` (compared byte for byte)',
    authorIdWire,
  ),
});
export type AuthorParams = z.output<typeof authorParamsSchema>;

/** The query of `DELETE /api/authors/{authorId}/videos` (docs/contract.md §10.2): §6's, and `dryRun`. */
export const eraseQuerySchema = deleteQuerySchema.extend({
  dryRun: flag(
    'dryRun',
    '`true` (any letter case): count the videos it would act on, change nothing; `false`: erase',
  ),
});
export type EraseQuery = z.output<typeof eraseQuerySchema>;

/** The `{erasureId}` path parameter: the UUID rule of docs/contract.md §5, normalized to lowercase. */
export const erasureIdParamsSchema = z.object({
  erasureId: operationIdSchema('erasureId', 'the `erasureId` an erasure request answered'),
});
export type ErasureIdParams = z.output<typeof erasureIdParamsSchema>;

const erasureState = z.enum(['running', 'purging', 'completed']).meta({
  description:
    '`running`: videos are being moved in batches; `purging` (permanent only): every video is being deleted, ' +
    'the purges are not all done; `completed`',
});

export const erasureAcceptedSchema = z.object({
  erasureId: z.string(),
  videos: z.number().int().meta({ description: "the author's videos it acts on (its total)" }),
  state: erasureState,
});
export type ErasureAccepted = z.output<typeof erasureAcceptedSchema>;

export const erasureDryRunSchema = z.object({
  videos: z.number().int().meta({ description: 'the videos an erasure would act on now' }),
  dryRun: z.literal(true),
});
export type ErasureDryRun = z.output<typeof erasureDryRunSchema>;

export const erasureSchema = z.object({
  erasureId: z.string(),
  authorId: z.string(),
  mode: z.enum(['soft', 'permanent']),
  total: z
    .number()
    .int()
    .meta({ description: "the author's videos when it was asked for, not already being deleted" }),
  done: z.number().int().meta({
    description: 'videos moved (soft-deleted, or their deletion started), committed with each batch',
  }),
  state: erasureState,
  startedAt: z.string().meta({ description: 'ISO 8601 UTC' }),
  completedAt: z.string().nullable().meta({
    description:
      'ISO 8601 UTC: every video soft-deleted (soft), or every video purged, media and index included (permanent)',
  }),
});
export type ErasureBody = z.output<typeof erasureSchema>;
