import { z } from 'zod';
import { isValidVideoId, normalizeId } from '@app/shared/ids/uuid';
import { documented, integerWire } from '../common/query-params';

/** The `{id}` path parameter: the UUID rule of docs/contract.md §5, normalized to lowercase. */
export const videoIdParamsSchema = z.object({
  id: documented(
    z
      .string()
      .refine(
        isValidVideoId,
        'id must be a UUID in canonical 8-4-4-4-12 form (versions 1–8, RFC variant, or nil/max)',
      )
      .transform(normalizeId),
    "the video's id: a UUID in canonical 8-4-4-4-12 form, any letter case (versions 1–8, or nil/max)",
    { type: 'string', format: 'uuid' },
  ),
});

export type VideoIdParams = z.output<typeof videoIdParamsSchema>;

/** The query of `DELETE /api/videos/{id}` (docs/contract.md §6). */
export const deleteQuerySchema = z.object({
  // The original interface's rule, kept: unlike the other flags, any value but `true` is a soft delete.
  permanent: documented(
    z
      .string()
      .optional()
      .transform((value) => value?.toLowerCase() === 'true'),
    '`true` (any letter case): delete permanently, media included, now; absent or any other value: a soft delete',
    { type: 'boolean', default: false },
  ),
  // Validated always, applied only to a soft delete.
  retentionDays: documented(
    z
      .string()
      // Any number of digits: `00005` is 5; a long run of them is simply out of range.
      .regex(/^\d+$/, 'retentionDays must be an integer from 0 to 3650 (digits only)')
      .transform(Number)
      .refine((value) => value <= 3650, 'retentionDays must be an integer from 0 to 3650 (digits only)')
      .optional(),
    'days a soft-deleted video stays restorable before its purge (default RETENTION_DEFAULT_DAYS, 30); ' +
      'checked always, applied only to a soft delete',
    integerWire(0, 3650, 30),
  ),
});

export type DeleteQuery = z.output<typeof deleteQuerySchema>;

export const softDeletedSchema = z.object({
  id: z.string(),
  state: z.literal('soft_deleted'),
  deletedAt: z.string().meta({ description: 'ISO 8601 UTC; kept by a repeated soft delete' }),
  purgeAt: z.string().meta({ description: 'ISO 8601 UTC: deletedAt + retention' }),
});

export const deletedSchema = z.object({ id: z.string(), state: z.literal('deleted') });

export const deleteResponseSchema = z.union([softDeletedSchema, deletedSchema]);
export type DeleteResponse = z.output<typeof deleteResponseSchema>;

export const restoreResponseSchema = z.object({ id: z.string(), state: z.literal('active') });
export type RestoreResponse = z.output<typeof restoreResponseSchema>;

const timestamp = (description: string) =>
  z
    .string()
    .nullable()
    .meta({ description: `ISO 8601 UTC; ${description}` });

/** Where one video's deletion stands (docs/contract.md §10.3). */
export const deletionReceiptSchema = z.object({
  id: z.string(),
  state: z.enum(['soft_deleted', 'deleting', 'deleted']).meta({
    description: '`deleted`: media, index document and row are gone (read from the audit record)',
  }),
  deletedAt: timestamp('when it left the catalogue'),
  purgeAt: timestamp('when retention purges it (null for a permanent deletion of an active video)'),
  requestedBy: z.string().nullable().meta({ description: 'the subject who asked for the deletion' }),
  reason: z.enum(['retention', 'permanent']).meta({
    description: '`retention`: a soft delete, purged when its retention ends; `permanent`: deleted at once',
  }),
  completedAt: timestamp('when the deletion finished; null until then'),
  objectsRemoved: z
    .number()
    .int()
    .nullable()
    .meta({ description: 'media objects deleted; null until the deletion finished' }),
});
export type DeletionReceiptResponse = z.output<typeof deletionReceiptSchema>;
