import { z } from 'zod';

/** An RFC 9457 problem, as every error leaves the API. */
export const problemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    errors: z
      .array(z.object({ name: z.string().meta({ description: 'the bad parameter' }), reason: z.string() }))
      .optional()
      .meta({ description: 'one entry per bad parameter (400 only)' }),
  })
  .meta({ id: 'Problem' });

export interface RouteResponse {
  description: string;
  schema?: z.ZodType;
  /** Errors are problem+json; successes JSON. */
  problem?: boolean;
  headers?: Record<string, string>;
}

/** One route as OpenAPI describes it, built from the same zod schemas that validate its input. */
export interface RouteDoc {
  method: 'get' | 'post' | 'delete';
  /** Express-style path: `/api/videos/:id`. */
  path: string;
  summary: string;
  tag: string;
  secured: boolean;
  params?: z.ZodObject;
  query?: z.ZodObject;
  responses: Record<number, RouteResponse>;
}

const AUTH_ERRORS: Record<number, RouteResponse> = {
  401: {
    description: 'missing or invalid bearer token',
    problem: true,
    headers: { 'WWW-Authenticate': 'Bearer, with error="invalid_token" when a token was presented' },
  },
};

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const json: Record<string, unknown> = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    reused: 'inline',
  });
  // The dialect is the document's (OpenAPI 3.1), not a per-schema declaration.
  delete json.$schema;
  return json;
}

function parameters(schema: z.ZodObject | undefined, where: 'path' | 'query') {
  if (!schema) return [];
  const object = jsonSchema(schema, 'input') as {
    properties?: Record<string, Record<string, unknown>>;
    required?: string[];
  };
  return Object.entries(object.properties ?? {}).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || (object.required ?? []).includes(name),
    ...(typeof property.description === 'string' ? { description: property.description } : {}),
    schema: property,
  }));
}

/** The OpenAPI 3.1 document for a set of routes. */
export function buildOpenApiDocument(
  info: { title: string; version: string; description: string },
  routes: RouteDoc[],
) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    const responses = Object.fromEntries(
      Object.entries({ ...route.responses, ...(route.secured ? AUTH_ERRORS : {}) }).map(
        ([status, response]) => [
          status,
          {
            description: response.description,
            ...(response.headers
              ? {
                  headers: Object.fromEntries(
                    Object.entries(response.headers).map(([h, d]) => [
                      h,
                      { description: d, schema: { type: 'string' } },
                    ]),
                  ),
                }
              : {}),
            ...(response.problem || response.schema
              ? {
                  content: {
                    [response.problem ? 'application/problem+json' : 'application/json']: {
                      schema: response.problem
                        ? { $ref: '#/components/schemas/Problem' }
                        : jsonSchema(response.schema!, 'output'),
                    },
                  },
                }
              : {}),
          },
        ],
      ),
    );
    paths[path] ??= {};
    paths[path][route.method] = {
      summary: route.summary,
      tags: [route.tag],
      ...(route.secured ? { security: [{ bearer: [] }] } : {}),
      parameters: [...parameters(route.params, 'path'), ...parameters(route.query, 'query')],
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info,
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      schemas: { Problem: jsonSchema(problemSchema, 'output') },
    },
  };
}
