import { type PipeTransform } from '@nestjs/common';
import type { z } from 'zod';
import { ProblemException, type ProblemFieldError } from './problem';

/**
 * Validates a request part against a zod schema and answers 400 problem+json naming each bad
 * parameter. A parameter given twice arrives as an array and is refused before the schema runs.
 */
export class ZodValidationPipe<S extends z.ZodType> implements PipeTransform<unknown, z.output<S>> {
  constructor(private readonly schema: S) {}

  transform(value: unknown): z.output<S> {
    const input = (value ?? {}) as Record<string, unknown>;
    const repeated: ProblemFieldError[] = Object.entries(input)
      .filter(([, v]) => Array.isArray(v))
      .map(([name]) => ({ name, reason: `${name} must be given at most once` }));
    const result = this.schema.safeParse(input);
    const errors = [
      ...repeated,
      ...(result.success
        ? []
        : result.error.issues
            .map((issue) => ({ name: String(issue.path[0] ?? 'query'), reason: issue.message }))
            .filter((error) => !repeated.some((r) => r.name === error.name))),
    ];
    const unique = errors.filter(
      (e, i) => errors.findIndex((o) => o.name === e.name && o.reason === e.reason) === i,
    );
    if (unique.length > 0 || !result.success) throw ProblemException.badRequest(unique);
    return result.data;
  }
}
