import { createParamDecorator, type ExecutionContext, type PipeTransform } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { UNREADABLE } from '@app/shared/http/percent-encoding';
import { ProblemException, type ProblemFieldError } from '@app/shared/http/problem';
import { noQuery } from './query-params';

type Validated<S extends z.ZodType> =
  { ok: true; data: z.output<S> } | { ok: false; errors: ProblemFieldError[] };

/**
 * A parameter the route does not take is refused, not ignored: a misspelt `dryRun` must not turn a
 * dry run into the real thing.
 */
function unknownParameters(schema: z.ZodType, input: Record<string, unknown>): ProblemFieldError[] {
  if (!(schema instanceof z.ZodObject)) return [];
  const known = Object.keys(schema.shape);
  const takes =
    known.length === 0 ? 'this route takes no parameters' : `this route takes ${known.join(', ')}`;
  return Object.keys(input)
    .filter((name) => !known.includes(name))
    .map((name) => ({ name, reason: `${name} is not a parameter of this route: ${takes}` }));
}

/**
 * Checks one request part against its schema. A parameter whose percent-encoding is not UTF-8, or
 * given twice (it arrives as an array), is refused as such, as is one the route does not take;
 * every other problem is the schema's own
 * message, one entry per parameter.
 */
export function validatePart<S extends z.ZodType>(schema: S, value: unknown): Validated<S> {
  const input = (value ?? {}) as Record<string, unknown>;
  const unreadable = Object.entries(input)
    .filter(([, v]) => v === UNREADABLE || (Array.isArray(v) && v.includes(UNREADABLE)))
    .map(([name]) => ({ name, reason: `${name} must be percent-encoded UTF-8` }));
  const repeated = Object.entries(input)
    .filter(([name, v]) => Array.isArray(v) && !unreadable.some((e) => e.name === name))
    .map(([name]) => ({ name, reason: `${name} must be given at most once` }));
  const result = schema.safeParse(input);
  const errors: ProblemFieldError[] = [...unreadable, ...repeated, ...unknownParameters(schema, input)];
  for (const issue of result.success ? [] : result.error.issues) {
    const name = String(issue.path[0] ?? 'request');
    if (!errors.some((e) => e.name === name)) errors.push({ name, reason: issue.message });
  }
  return errors.length === 0 && result.success ? { ok: true, data: result.data } : { ok: false, errors };
}

/** Validates one request part (`@Query(new ZodValidationPipe(schema))`) and answers 400 problem+json. */
export class ZodValidationPipe<S extends z.ZodType> implements PipeTransform<unknown, z.output<S>> {
  constructor(private readonly schema: S) {}

  transform(value: unknown): z.output<S> {
    const result = validatePart(this.schema, value);
    if (!result.ok) throw ProblemException.badRequest(result.errors);
    return result.data;
  }
}

/**
 * Validates path parameters and query together, so one 400 names every bad parameter of both. A
 * route without a query schema takes no query parameters at all.
 */
export function ValidatedInput<P extends z.ZodType, Q extends z.ZodType = typeof noQuery>(schemas: {
  params: P;
  query?: Q;
}) {
  return createParamDecorator((_data: unknown, context: ExecutionContext) => {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const params = validatePart(schemas.params, request.params);
    const query = validatePart(schemas.query ?? noQuery, request.query);
    if (!params.ok || !query.ok) {
      throw ProblemException.badRequest([
        ...(params.ok ? [] : params.errors),
        ...(query.ok ? [] : query.errors),
      ]);
    }
    return { params: params.data, query: query.data };
  })();
}
