import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ProblemException, type ProblemFieldError } from '@app/shared/http/problem';
import { noQuery } from './query-params';
import { validatePart } from './zod-validation.pipe';

/** The most problems one answer names; more are summed up in a last entry. */
export const MAX_NAMED_PROBLEMS = 100;

const JSON_MEDIA_TYPE = /^application\/json\s*(;|$)/i;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** `['rules', 3]` → `rules[3]`: where in the body a problem is, as a client would write it. */
export function bodyPath(path: readonly PropertyKey[]): string {
  return (
    path.reduce<string>(
      (name, part) =>
        typeof part === 'number' ? `${name}[${part}]` : name ? `${name}.${String(part)}` : String(part),
      '',
    ) || 'body'
  );
}

/** At most MAX_NAMED_PROBLEMS entries, the rest counted in one more. */
export function cappedProblems(errors: ProblemFieldError[], name: string): ProblemFieldError[] {
  if (errors.length <= MAX_NAMED_PROBLEMS) return errors;
  const more = errors.length - MAX_NAMED_PROBLEMS;
  return [...errors.slice(0, MAX_NAMED_PROBLEMS), { name, reason: `and ${more} more problems like these` }];
}

/**
 * A JSON body checked strictly against `schema` (docs/contract.md §4): it must be sent as
 * `application/json` (else 415) and be UTF-8 JSON of an object (else 400 naming `body`); a field
 * the schema does not list is a 400 naming it, as an unknown query parameter is; every other
 * problem is the schema's, named by its place (`rules[3]`).
 */
export function parseJsonBody<S extends z.ZodObject>(
  schema: S,
  contentType: string | undefined,
  body: unknown,
): z.output<S> {
  if (!JSON_MEDIA_TYPE.test(contentType ?? ''))
    throw new ProblemException(415, 'The request body must be JSON, sent as Content-Type: application/json.');
  let value: unknown;
  try {
    value = JSON.parse(utf8.decode(body instanceof Uint8Array ? body : new Uint8Array()));
  } catch {
    throw ProblemException.badRequest([{ name: 'body', reason: 'the body must be UTF-8 JSON' }]);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw ProblemException.badRequest([{ name: 'body', reason: 'the body must be a JSON object' }]);
  }
  const known = Object.keys(schema.shape);
  const errors: ProblemFieldError[] = Object.keys(value)
    .filter((name) => !known.includes(name))
    .map((name) => ({ name, reason: `${name} is not a field of this body: it takes ${known.join(', ')}` }));
  const result = schema.safeParse(value);
  for (const issue of result.success ? [] : result.error.issues) {
    // The unknown fields are named above, each by itself.
    if (issue.code === 'unrecognized_keys') continue;
    const name = bodyPath(issue.path);
    errors.push({ name, reason: `${name}: ${issue.message}` });
  }
  if (errors.length > 0 || !result.success) throw ProblemException.badRequest(cappedProblems(errors, 'body'));
  return result.data;
}

/**
 * The request's JSON body, checked by `parseJsonBody` (`@JsonBody(schema) body`), once its query is
 * (`query`: by default, the route takes no query parameters): a bad parameter is named first,
 * whatever the body holds, as on every route.
 */
export const JsonBody = <S extends z.ZodObject>(schema: S, query: z.ZodObject = noQuery) =>
  createParamDecorator((_data: unknown, context: ExecutionContext) => {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const parameters = validatePart(query, request.query);
    if (!parameters.ok) throw ProblemException.badRequest(parameters.errors);
    return parseJsonBody(schema, request.headers['content-type'], request.body);
  })();
