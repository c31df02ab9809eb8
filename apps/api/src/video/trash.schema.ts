import { z } from 'zod';
import {
  authorIdSchema,
  authorIdWire,
  checkPageWindow,
  documented,
  operationIdSchema,
  pagingFields,
} from '../common/query-params';

const trashOwner = {
  authorId: documented(
    authorIdSchema.optional(),
    "whose trash: the caller's by default; another author's for admins only",
    authorIdWire,
  ),
};

/** The query of `GET /api/videos/trash` (docs/contract.md §10.1): page and limit as in search. */
export const trashQuerySchema = z
  .object({ ...trashOwner, ...pagingFields })
  .superRefine((query, context) =>
    checkPageWindow(query, context, 'the trash lists its most recently deleted videos that far'),
  );
export type TrashQuery = z.output<typeof trashQuerySchema>;

/** The query of `POST /api/videos/trash/restore` and `DELETE /api/videos/trash`. */
export const trashOwnerQuerySchema = z.object(trashOwner);
export type TrashOwnerQuery = z.output<typeof trashOwnerQuerySchema>;

export const trashPageSchema = z.object({
  items: z.array(
    z.object({
      id: z.string(),
      title: z.string(),
      deletedAt: z.string().meta({ description: 'ISO 8601 UTC' }),
      purgeAt: z.string().meta({ description: 'ISO 8601 UTC: when the worker purges it unless restored' }),
    }),
  ),
  page: z.number().int(),
  limit: z.number().int(),
  total: z.number().int().meta({ description: 'videos in the trash' }),
  totalPages: z.number().int(),
});
export type TrashPage = z.output<typeof trashPageSchema>;

/** The `{operationId}` path parameter: the UUID rule of docs/contract.md §5, normalized to lowercase. */
export const trashOperationIdParamsSchema = z.object({
  operationId: operationIdSchema('operationId', 'the `operationId` a trash restore or empty answered'),
});
export type TrashOperationIdParams = z.output<typeof trashOperationIdParamsSchema>;

const operationState = z.enum(['running', 'completed']).meta({
  description:
    '`running`: the videos are being moved in batches; `completed`: every one restored, or its deletion started',
});

export const trashOperationAcceptedSchema = z.object({
  operationId: z.string(),
  videos: z.number().int().meta({ description: 'the videos in the trash when it was asked for (its total)' }),
  state: operationState,
});
export type TrashOperationAccepted = z.output<typeof trashOperationAcceptedSchema>;

export const trashOperationSchema = z.object({
  operationId: z.string(),
  authorId: z.string().meta({ description: 'whose trash' }),
  kind: z.enum(['restore', 'empty']).meta({
    description: '`restore`: every video back to active; `empty`: every video permanently deleted',
  }),
  total: z.number().int().meta({ description: 'the videos in the trash when it was asked for' }),
  done: z.number().int().meta({
    description: 'videos moved (restored, or their deletion started), committed with each batch',
  }),
  state: operationState,
  startedAt: z.string().meta({ description: 'ISO 8601 UTC: when it was asked for' }),
  completedAt: z.string().nullable().meta({
    description:
      'ISO 8601 UTC: every video restored, or its deletion started (the purges follow, as for one permanent delete)',
  }),
});
export type TrashOperationBody = z.output<typeof trashOperationSchema>;
