import { EVENT_TYPES } from '@app/shared/events/events.schema';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { mountApiDocs } from '@app/api/api-docs';
import { AppModule } from '@app/api/app.module';
import { API_ROUTES, apiDocument } from '@app/api/openapi';
import { describeProblems, redoclyLint } from '../support/redocly';

interface Operation {
  operationId: string;
  security: Record<string, string[]>[];
  parameters: { name: string; in: string; required: boolean }[];
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
}

interface Document {
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<
    string,
    { post: Operation & { requestBody: { content: Record<string, { schema: { $ref: string } }> } } }
  >;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
}

describe('OpenAPI document', () => {
  let app: NestFastifyApplication;
  /** Every route the application serves, as Fastify registers them. */
  const served: string[] = [];
  /** The document as `/docs-json` serves it. */
  let document: Document;
  const operations = () =>
    Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
    );

  beforeAll(async () => {
    app = await NestFactory.create<NestFastifyApplication>(AppModule, new FastifyAdapter(), {
      logger: false,
    });
    app
      .getHttpAdapter()
      .getInstance()
      .addHook('onRoute', (route) => {
        // Fastify answers HEAD for every GET by itself.
        for (const method of [route.method].flat()) {
          if (method !== 'HEAD') served.push(`${method.toLowerCase()} ${route.url}`);
        }
      });
    await mountApiDocs(app, apiDocument());
    await app.init();
    const response = await app.inject({ method: 'GET', url: '/docs-json' });
    expect(response.statusCode).toBe(200);
    document = response.json<Document>();
  }, 60_000);

  afterAll(async () => {
    await app?.close();
  }, 30_000);

  it('documents every route the API serves', () => {
    const documented = API_ROUTES.map((route) => `${route.method} ${route.path}`);
    // Swagger UI's own files and copies of the document, under /docs/.
    const routes = served.filter((route) => !route.startsWith('get /docs/'));
    expect(routes.length).toBeGreaterThanOrEqual(8);
    for (const route of routes) expect(documented).toContain(route);
  });

  it('passes Redocly’s recommended rules with no error and no warning', async () => {
    const report = await redoclyLint(document);
    expect({ ...report.totals, problems: describeProblems(report) }).toEqual({
      errors: 0,
      warnings: 0,
      ignored: 0,
      problems: '',
    });
  }, 60_000);

  it('names every operation and states its security, bearerAuth or none', () => {
    const ids = Object.fromEntries(
      operations().map((o) => [`${o.method} ${o.path}`, o.operation.operationId]),
    );
    expect(ids).toMatchObject({
      'get /api/videos/search': 'listVideoSearch',
      'delete /api/videos/{id}': 'deleteVideo',
      'post /api/videos/{id}/restore': 'restoreVideo',
      'post /api/videos/trash/restore': 'restoreTrash',
      'delete /api/videos/trash': 'emptyTrash',
      'get /api/trash-operations/{operationId}': 'getTrashOperation',
      'get /health/live': 'getLiveness',
      'get /health/ready': 'getReadiness',
    });
    // The trash operations answer 202 at once (docs/contract.md §10.1), no longer 200 when done.
    for (const { path, method, operation } of operations().filter(
      (o) =>
        o.path.startsWith('/api/videos/trash/') || (o.path === '/api/videos/trash' && o.method === 'delete'),
    )) {
      expect([`${method} ${path}`, Object.keys(operation.responses)]).toEqual([
        `${method} ${path}`,
        ['202', '400', '401', '403', '429', '503'],
      ]);
    }
    // Served on the metrics port only, not by this API (docs/contract.md §9).
    expect(document.paths).not.toHaveProperty('/metrics');
    for (const id of Object.values(ids)) expect(id).toMatch(/^[a-z]+[A-Za-z]*$/);
    expect(document.components.securitySchemes.bearerAuth).toEqual({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
    });
    for (const { path, operation } of operations()) {
      if (path.startsWith('/api/')) expect(operation.security).toEqual([{ bearerAuth: [] }]);
      if (/^\/(health|docs)/.test(path)) expect(operation.security).toEqual([]);
    }
  });

  it('gives every answer a body schema, problems as application/problem+json', () => {
    for (const { path, method, operation } of operations()) {
      for (const [status, response] of Object.entries(operation.responses)) {
        const where = `${method} ${path} ${status}`;
        const media = Object.keys(response.content ?? {});
        // A 304 has no body, by HTTP's rule (RFC 9110 §15.4.5).
        expect([where, media.length > 0]).toEqual([where, status !== '304']);
        for (const { schema } of Object.values(response.content ?? {})) expect(schema).toBeDefined();
        if (Number(status) >= 400 && path !== '/health/ready') {
          expect([where, media]).toEqual([where, ['application/problem+json']]);
        }
      }
    }
    expect(document.components.schemas).toHaveProperty('Problem');
  });

  it('serves one webhook per event type, its body a named schema (docs/contract.md §10.4)', () => {
    expect(Object.keys(document.webhooks)).toEqual(EVENT_TYPES);
    for (const { post } of Object.values(document.webhooks)) {
      const { $ref } = post.requestBody.content['application/json']!.schema;
      expect(document.components.schemas).toHaveProperty($ref.replace('#/components/schemas/', ''));
      expect(post.parameters.map((p) => `${p.in}:${p.name}`)).toEqual([
        'header:webhook-id',
        'header:webhook-timestamp',
        'header:webhook-signature',
      ]);
    }
  });

  it('describes every parameter the validation schemas accept, with responses and errors', () => {
    const search = document.paths['/api/videos/search']!.get!;
    expect(search.parameters.map((p) => p.name).sort()).toEqual([
      'authorId',
      'cursor',
      'dateFrom',
      'dateTo',
      'facets',
      'highlight',
      'limit',
      'page',
      'q',
      'sort',
    ]);
    expect(search.parameters.find((p) => p.name === 'q')!.required).toBe(true);
    // Generated clients offer the sorts as an enum.
    expect(JSON.stringify(search.parameters.find((p) => p.name === 'sort'))).toMatch(
      /"enum":\["relevance","newest","oldest"\]/,
    );
    expect(Object.keys(search.responses).sort()).toEqual(['200', '400', '401', '429', '503']);
    // Its 429 names the ceilings on cursor walks beside the rate limit, with Retry-After.
    const tooMany = search.responses['429'] as { description: string; headers?: Record<string, unknown> };
    expect(tooMany.description).toMatch(/rate|too many requests/i);
    expect(tooMany.description).toMatch(/SEARCH_PIT_MAX_PER_CALLER.*SEARCH_PIT_MAX_OPEN/);
    expect(tooMany.headers).toHaveProperty('Retry-After');

    const remove = document.paths['/api/videos/{id}']!.delete!;
    expect(remove.parameters.map((p) => `${p.in}:${p.name}`).sort()).toEqual([
      'path:id',
      'query:permanent',
      'query:retentionDays',
    ]);
    expect(Object.keys(remove.responses).sort()).toEqual(['200', '400', '401', '403', '404', '429', '503']);
    expect(Object.keys(document.paths['/api/videos/{id}/restore']!.post!.responses)).toContain('404');
  });
});
