import { Controller, Get } from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants';
import { z } from 'zod';
import { json, problem, Route, routesOf, type RouteDoc } from './route-doc';

const doc = (method: RouteDoc['method'], path: string, operationId: string): RouteDoc => ({
  method,
  path,
  operationId,
  tag: 'things',
  summary: operationId,
  description: operationId,
  security: 'public',
  responses: { 200: { description: 'ok', json: json('Thing', z.object({})) }, 404: problem('no thing') },
});

@Controller('api/things/')
class ThingController {
  @Route(doc('get', '', 'listThings'))
  list() {}

  @Route(doc('delete', ':id', 'deleteThing'))
  remove() {}

  helper() {}
}

@Controller()
class RootController {
  @Route(doc('post', '/ping/', 'ping'))
  ping() {}
}

describe('Route and routesOf', () => {
  it('maps the handler for Nest and gives each route whole, in the controllers’ order', () => {
    const remove = Object.getOwnPropertyDescriptor(ThingController.prototype, 'remove')!.value as object;
    expect(Reflect.getMetadata(PATH_METADATA, remove)).toBe(':id');
    expect(
      routesOf([ThingController, RootController]).map(
        (route) => `${route.method} ${route.path} ${route.operationId}`,
      ),
    ).toEqual(['get /api/things listThings', 'delete /api/things/:id deleteThing', 'post /ping ping']);
  });

  it('refuses a handler routed without @Route', () => {
    @Controller('api/other')
    class UndocumentedController {
      @Get(':id')
      read() {}
    }
    expect(() => routesOf([UndocumentedController])).toThrow(
      /UndocumentedController.read is routed without @Route/,
    );
  });
});
