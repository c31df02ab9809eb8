import { z } from 'zod';
import type { NamedSchema, RouteDoc, RouteResponse } from '@app/shared/http/route-doc';

/** An RFC 9457 problem, as every error leaves the API. */
export const problemSchema = z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  errors: z
    .array(z.object({ name: z.string().meta({ description: 'the bad parameter' }), reason: z.string() }))
    .optional()
    .meta({ description: 'one entry per bad parameter (400 only)' }),
});

/**
 * A request the service sends rather than serves (an OpenAPI 3.1 webhook): what a receiver gets
 * and what it is expected to answer.
 */
export interface WebhookDoc {
  /** Its key under `webhooks`. */
  name: string;
  operationId: string;
  summary: string;
  description: string;
  tag: string;
  /** Headers every request carries, by name: what each says to the receiver. */
  headers: Record<string, string>;
  /** The `application/json` body. */
  body: NamedSchema;
  /** The receiver's answers the sender tells apart, by status or range (`2XX`). */
  responses: Record<string, { description: string }>;
}

export interface DocumentInfo {
  title: string;
  version: string;
  description: string;
  license: { name: string };
  tags: { name: string; description: string }[];
  /** Schemes other than `bearerAuth`, which every document has. */
  securitySchemes?: Record<string, Record<string, string>>;
}

const RETRY_AFTER = { 'Retry-After': 'seconds to wait before trying again' };

/** Answers the API's guards give on every bearer-secured route, before the handler runs. */
const BEARER_ERRORS: Record<number, RouteResponse> = {
  401: {
    description: 'missing or invalid bearer token',
    problem: true,
    headers: { 'WWW-Authenticate': 'Bearer, with error="invalid_token" when a token was presented' },
  },
  429: { description: 'too many requests from this caller', problem: true, headers: RETRY_AFTER },
};

/** Any route answers this while its process drains after SIGTERM (http-app.ts), so every route lists it. */
const DRAINING = 'this instance is shutting down';

function withCommonAnswers(route: RouteDoc): Record<number, RouteResponse> {
  const responses = { ...route.responses, ...(route.security === 'bearer' ? BEARER_ERRORS : {}) };
  // A route's own 429 (a ceiling of its own) is listed beside the rate limit's.
  const own429 = route.responses[429];
  if (own429 && responses[429] !== own429) {
    responses[429] = {
      ...own429,
      description: `${responses[429]!.description}; or ${own429.description}`,
      problem: true,
      headers: { ...RETRY_AFTER, ...own429.headers },
    };
  }
  const own = responses[503];
  responses[503] = {
    ...own,
    description: own ? `${own.description}; or ${DRAINING}` : DRAINING,
    problem: true,
    headers: { ...RETRY_AFTER, ...own?.headers },
  };
  return responses;
}

function withoutDialect(json: Record<string, unknown>): Record<string, unknown> {
  // The dialect is the document's (OpenAPI 3.1), and a schema's place is its address: neither is declared per schema.
  delete json.$schema;
  delete json.$id;
  return json;
}

/**
 * A parameter's validator reads text; where it declares how it looks on the wire (an integer, a
 * boolean, a UUID: common/query-params.ts), that schema replaces the string one zod derives.
 */
function wireSchema({ jsonSchema }: { jsonSchema: Record<string, unknown> }): void {
  const { wire, description } = jsonSchema as { wire?: Record<string, unknown>; description?: unknown };
  if (!wire) return;
  for (const keyword of Object.keys(jsonSchema)) delete jsonSchema[keyword];
  Object.assign(jsonSchema, wire, description === undefined ? {} : { description });
}

function parameters(schema: z.ZodObject | undefined, where: 'path' | 'query') {
  if (!schema) return [];
  const object = withoutDialect(
    z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', override: wireSchema }),
  ) as {
    properties?: Record<string, Record<string, unknown>>;
    required?: string[];
  };
  return Object.entries(object.properties ?? {}).map(([name, { description, ...property }]) => ({
    name,
    in: where,
    required: where === 'path' || (object.required ?? []).includes(name),
    ...(typeof description === 'string' ? { description } : {}),
    schema: property,
  }));
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

function content(response: RouteResponse) {
  const media: Record<string, unknown> = {};
  if (response.json) media['application/json'] = { schema: ref(response.json.name) };
  if (response.problem) media['application/problem+json'] = { schema: ref('Problem') };
  if (response.text) media[response.text] = { schema: { type: 'string' } };
  return Object.keys(media).length ? { content: media } : {};
}

function headers(response: RouteResponse) {
  if (!response.headers) return {};
  return {
    headers: Object.fromEntries(
      Object.entries(response.headers).map(([name, description]) => [
        name,
        { description, schema: { type: 'string' } },
      ]),
    ),
  };
}

function security(route: RouteDoc) {
  if (route.security === 'bearer') return [{ bearerAuth: [] }];
  // Said explicitly, so a public route is not mistaken for one that forgot its scheme.
  if (route.security === 'public') return [];
  return route.security;
}

/**
 * Every named body, converted together so a schema used in several places (Problem) is one
 * component that the others reference, never a `$defs` copy inside each.
 */
function componentSchemas(routes: RouteDoc[], webhooks: WebhookDoc[]) {
  const named = new Map<string, z.ZodType>([['Problem', problemSchema]]);
  const bodies = [
    ...routes.flatMap((route) => Object.values(route.responses).flatMap(({ json }) => (json ? [json] : []))),
    ...routes.flatMap((route) => (route.body ? [route.body] : [])),
    ...webhooks.map((webhook) => webhook.body),
  ];
  for (const { name, schema } of bodies) {
    const taken = named.get(name);
    if (taken && taken !== schema) throw new Error(`two schemas are named ${name}`);
    named.set(name, schema);
  }
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of named) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, {
    io: 'output',
    unrepresentable: 'any',
    reused: 'inline',
    uri: (id) => `#/components/schemas/${id}`,
  });
  return Object.fromEntries(
    Object.entries(schemas).map(([name, schema]) => [
      name,
      withoutDialect(schema as Record<string, unknown>),
    ]),
  );
}

/** One webhook: a POST of its body, with its headers as header parameters (as OpenAPI 3.1 has them). */
function webhookOperation(webhook: WebhookDoc) {
  return {
    post: {
      operationId: webhook.operationId,
      summary: webhook.summary,
      description: webhook.description,
      tags: [webhook.tag],
      // The receiver authenticates a request by its signature headers (below), which no OpenAPI
      // security scheme describes: an HMAC of the body is neither a key nor an HTTP scheme.
      security: [],
      parameters: Object.entries(webhook.headers).map(([name, description]) => ({
        name,
        in: 'header',
        required: true,
        description,
        schema: { type: 'string' },
      })),
      requestBody: { required: true, content: { 'application/json': { schema: ref(webhook.body.name) } } },
      responses: webhook.responses,
    },
  };
}

/** The OpenAPI 3.1 document for a set of routes, and the webhooks the service sends. */
export function buildOpenApiDocument(info: DocumentInfo, routes: RouteDoc[], webhooks: WebhookDoc[] = []) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    const responses = Object.fromEntries(
      Object.entries(withCommonAnswers(route)).map(([status, response]) => [
        status,
        { description: response.description, ...headers(response), ...content(response) },
      ]),
    );
    paths[path] ??= {};
    paths[path][route.method] = {
      operationId: route.operationId,
      summary: route.summary,
      description: route.description,
      tags: [route.tag],
      security: security(route),
      parameters: [
        ...parameters(route.params, 'path'),
        ...parameters(route.query, 'query'),
        ...Object.entries(route.headers ?? {}).map(([name, description]) => ({
          name,
          in: 'header',
          required: false,
          description,
          schema: { type: 'string' },
        })),
      ],
      ...(route.body
        ? {
            requestBody: {
              required: true,
              content: { 'application/json': { schema: ref(route.body.name) } },
            },
          }
        : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: info.title, version: info.version, description: info.description, license: info.license },
    // Relative: the document describes the server that serves it, whatever its host.
    servers: [{ url: '/', description: 'the API that serves this document' }],
    tags: info.tags,
    paths,
    webhooks: Object.fromEntries(webhooks.map((webhook) => [webhook.name, webhookOperation(webhook)])),
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        ...info.securitySchemes,
      },
      schemas: componentSchemas(routes, webhooks),
    },
  };
}
