import { z } from 'zod';
import { UNREADABLE } from '@app/shared/http/percent-encoding';
import { validatePart } from './zod-validation.pipe';
import { authorIdSchema } from './query-params';

const schema = z.object({ authorId: authorIdSchema.optional(), q: z.string().optional() });

describe('validatePart', () => {
  it('names a parameter whose percent-encoding was not UTF-8, with that reason alone', () => {
    expect(validatePart(schema, { authorId: UNREADABLE, q: 'fine' })).toEqual({
      ok: false,
      errors: [{ name: 'authorId', reason: 'authorId must be percent-encoded UTF-8' }],
    });
  });

  it('says so of a repeated parameter whose value did not decode, rather than that it repeats', () => {
    expect(validatePart(schema, { q: ['a', UNREADABLE] })).toEqual({
      ok: false,
      errors: [{ name: 'q', reason: 'q must be percent-encoded UTF-8' }],
    });
  });

  it('names each bad parameter once: unreadable, repeated, or refused by its rule', () => {
    const result = validatePart(schema, { authorId: 'x\u0000', q: ['a', 'b'] });
    expect(result.ok ? [] : result.errors.map((error) => error.name)).toEqual(['q', 'authorId']);
    expect(result.ok ? '' : result.errors[1]!.reason).toMatch(/^authorId must be 1 to 128 characters/);
  });

  it('passes what decodes and follows the rules', () => {
    expect(validatePart(schema, { authorId: 'x\uFFFD', q: 'a' })).toEqual({
      ok: true,
      data: { authorId: 'x\uFFFD', q: 'a' },
    });
  });
});
