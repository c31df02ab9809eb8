import { z } from 'zod';
import { authorIdSchema, checkPageWindow, pagingFields } from '../common/query-params';

const trashOwner = {
  authorId: authorIdSchema
    .optional()
    .meta({ description: "whose trash: the caller's by default; another author's for admins only" }),
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

export const trashRestoredSchema = z.object({
  restored: z.number().int().meta({ description: 'videos restored: active and searchable again' }),
});
export const trashEmptiedSchema = z.object({
  deleting: z.number().int().meta({ description: 'videos whose permanent deletion started' }),
});
