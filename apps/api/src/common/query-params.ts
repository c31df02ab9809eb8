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

/**
 * A parameter arrives as text, so its validator is a string schema; `wire` is how the OpenAPI document
 * shows it (an integer with its range, a boolean, a UUID), built from the same arguments as the check.
 * The document builder puts it in place of the string schema zod derives (common/openapi-builder.ts).
 */
export interface WireSchema {
  type: 'integer' | 'boolean' | 'string';
  [keyword: string]: unknown;
}

export const documented = <S extends z.ZodType>(schema: S, description: string, wire?: WireSchema): S =>
  schema.meta({ description, ...(wire ? { wire } : {}) });

/** Digits only, any number of them (`007` is 7); a page too large to count fails the window check. */
export const digits = (name: string, min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, rangeMessage(name, min, max))
    .transform(Number)
    .refine((value) => value >= min && value <= max, rangeMessage(name, min, max))
    .optional();

/** The document's view of `digits(name, min, max)`: an integer within the same range. */
export const integerWire = (min: number, max: number, fallback?: number): WireSchema => ({
  type: 'integer',
  minimum: min,
  ...(Number.isFinite(max) ? { maximum: max } : {}),
  ...(fallback === undefined ? {} : { default: fallback }),
});

/** `true` or `false`, in any letter case; absent is false; any other value is a 400 naming it. */
export const flag = (name: string, description: string) =>
  documented(
    z
      .string()
      .regex(/^(true|false)$/i, `${name} must be true or false`)
      .transform((value) => value.toLowerCase() === 'true')
      .optional()
      .transform((value) => value ?? false),
    description,
    { type: 'boolean', default: false },
  );

/** The query of a route that takes none: any parameter given is unknown, and a 400. */
export const noQuery = z.object({});

/** A length check in characters (code points): an emoji counts once, not as its two UTF-16 units. */
export const charactersWithin = (min: number, max: number) => (value: string) => {
  const characters = [...value].length;
  return characters >= min && characters <= max;
};

/** The id of a durable request (an erasure, a trash operation): the UUID rule of §5, normalized to lowercase. */
export const operationIdSchema = (name: string, description: string) =>
  documented(
    z
      .string()
      .refine(isValidVideoId, `${name} must be a UUID in canonical 8-4-4-4-12 form`)
      .transform(normalizeId),
    description,
    { type: 'string', format: 'uuid' },
  );

/** An author id: opaque, by the one rule of §3 that tokens and import records follow too. */
export const authorIdSchema = z.string().refine(isValidAuthorId, `authorId ${AUTHOR_ID_RULE}`);

/** The document's view of an author id: opaque text of 1–128 characters (code points). */
export const authorIdWire: WireSchema = { type: 'string', minLength: 1, maxLength: 128 };

/** `page` and `limit` of a paged list: page ≥ 1 (absent: 1), limit 1–100 (absent: 20). */
export const pagingFields = {
  page: documented(
    digits('page', 1, Infinity),
    `which page, from 1; page × limit at most ${MAX_RESULT_WINDOW}`,
    integerWire(1, Infinity, 1),
  ),
  limit: documented(
    digits('limit', 1, 100).transform((value) => value ?? 20),
    'results per page',
    integerWire(1, 100, 20),
  ),
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
