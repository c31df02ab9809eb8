import { z } from 'zod';
import { AUTHOR_ID_RULE, isValidAuthorId } from '@app/shared/ids/author-id';
import { isValidVideoId, normalizeId } from '@app/shared/ids/uuid';
import { MAX_RESULT_WINDOW } from '@app/shared/search/search-params';

/**
 * Rules that several inputs share (docs/contract.md §7, and §10 "as in search"): one definition, so
 * a parameter is checked, explained and documented alike wherever it appears.
 */

const rangeMessage = (name: string, min: number, max: number) =>
  Number.isFinite(max)
    ? `${name} must be an integer from ${min} to ${max}`
    : `${name} must be an integer of at least ${min}`;

/** Digits only, any number of them (`007` is 7); a page too large to count fails the window check. */
export const digits = (name: string, min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, rangeMessage(name, min, max))
    .transform(Number)
    .refine((value) => value >= min && value <= max, rangeMessage(name, min, max))
    .optional();

/** A length check in characters (code points): an emoji counts once, not as its two UTF-16 units. */
export const charactersWithin = (min: number, max: number) => (value: string) => {
  const characters = [...value].length;
  return characters >= min && characters <= max;
};

/** The id of a durable request (an erasure, a trash operation): the UUID rule of §5, normalized to lowercase. */
export const operationIdSchema = (name: string) =>
  z
    .string()
    .refine(isValidVideoId, `${name} must be a UUID in canonical 8-4-4-4-12 form`)
    .transform(normalizeId);

/** An author id: opaque, by the one rule of §3 that tokens and import records follow too. */
export const authorIdSchema = z.string().refine(isValidAuthorId, `authorId ${AUTHOR_ID_RULE}`);

/** `page` and `limit` of a paged list: page ≥ 1 (absent: 1), limit 1–100 (absent: 20). */
export const pagingFields = {
  page: digits('page', 1, Infinity),
  limit: digits('limit', 1, 100).transform((value) => value ?? 20),
};

/** Refuses a page beyond the first MAX_RESULT_WINDOW results, explaining how to read further. */
export function checkPageWindow(
  query: { page?: number | undefined; limit: number },
  context: z.core.$RefinementCtx,
  further: string,
): void {
  if ((query.page ?? 1) * query.limit > MAX_RESULT_WINDOW) {
    context.addIssue({
      code: 'custom',
      path: ['page'],
      message: `page × limit must not exceed ${MAX_RESULT_WINDOW}: ${further}`,
    });
  }
}
