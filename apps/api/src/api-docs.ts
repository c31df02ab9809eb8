import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import { apiDocument } from './openapi';

/** Serves the document at /docs-json (and /docs/json) and Swagger UI at /docs. */
export async function mountApiDocs(app: NestFastifyApplication): Promise<void> {
  const document = apiDocument();
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
