import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { json, type RouteDoc } from '@app/shared/http/route-doc';

/** The routes `mountApiDocs` serves, as the document describes them. */
export const API_DOCS_ROUTES: RouteDoc[] = [
  {
    method: 'get',
    path: '/docs-json',
    operationId: 'getOpenApiDocument',
    tag: 'operations',
    summary: 'This OpenAPI document',
    description: 'The OpenAPI 3.1 document of the API, built from the zod schemas that validate its input.',
    security: 'public',
    responses: {
      200: { description: 'the document', json: json('OpenApiDocument', z.record(z.string(), z.unknown())) },
    },
  },
  {
    method: 'get',
    path: '/docs',
    operationId: 'getApiDocsPage',
    tag: 'operations',
    summary: 'Swagger UI',
    description: 'Swagger UI over this document.',
    security: 'public',
    responses: { 200: { description: 'the page', text: 'text/html' } },
  },
];

/** Serves `document` at /docs-json (and /docs/json) and Swagger UI at /docs. */
export async function mountApiDocs(app: NestFastifyApplication, document: object): Promise<void> {
  // A scope of its own, so the UI's static file server stays out of the other routes.
  await app.register(async (scope: FastifyInstance) => {
    await scope.register(fastifySwagger, {
      mode: 'static',
      specification: { document: document as never },
    });
    await scope.register(fastifySwaggerUi, { routePrefix: '/docs' });
  });
  app
    .getHttpAdapter()
    .getInstance()
    .get('/docs-json', { schema: { hide: true } }, () => document);
}
