import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from '../../apps/api/src/app.module';
import { API_ROUTES, apiDocument } from '../../apps/api/src/openapi';

/** The routes the API application really serves, as Fastify registers them. */
async function servedRoutes(): Promise<string[]> {
  const app = await NestFactory.create<NestFastifyApplication>(AppModule, new FastifyAdapter(), {
    logger: false,
  });
  const routes: string[] = [];
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onRoute', (route) => {
      // Fastify answers HEAD for every GET by itself.
      for (const method of [route.method].flat()) {
        if (method !== 'HEAD') routes.push(`${method.toLowerCase()} ${route.url}`);
      }
    });
  try {
    await app.init();
    return routes;
  } finally {
    await app.close();
  }
}

describe('OpenAPI document', () => {
  it('documents every route the API serves', async () => {
    const documented = API_ROUTES.map((route) => `${route.method} ${route.path}`);
    const served = await servedRoutes();
    expect(served.length).toBeGreaterThanOrEqual(6);
    for (const route of served) expect(documented).toContain(route);
  }, 60_000);

  it('describes every parameter the validation schemas accept, with responses and errors', () => {
    const document = apiDocument() as {
      paths: Record<
        string,
        Record<
          string,
          {
            parameters: { name: string; in: string; required: boolean }[];
            responses: Record<string, unknown>;
          }
        >
      >;
    };
    const search = document.paths['/api/videos/search']!.get!;
    expect(search.parameters.map((p) => p.name).sort()).toEqual([
      'authorId',
      'dateFrom',
      'dateTo',
      'limit',
      'page',
      'q',
    ]);
    expect(search.parameters.find((p) => p.name === 'q')!.required).toBe(true);
    expect(Object.keys(search.responses).sort()).toEqual(['200', '400', '401', '503']);

    const remove = document.paths['/api/videos/{id}']!.delete!;
    expect(remove.parameters.map((p) => `${p.in}:${p.name}`).sort()).toEqual([
      'path:id',
      'query:permanent',
      'query:retentionDays',
    ]);
    expect(Object.keys(remove.responses).sort()).toEqual(['200', '400', '401', '403', '404', '503']);
    expect(Object.keys(document.paths['/api/videos/{id}/restore']!.post!.responses)).toContain('404');
  });
});
