/**
 * The floor of any API built as this one must be: the bare forwarding proxy's work (bench/floor-proxy.ts),
 * but through the frameworks the user fixed. Nest on Fastify (the platform the API runs on, with its
 * defaults) takes `GET /?q=…`; the project's Elasticsearch client (`createSearchClient`) sends the
 * plain `multi_match` (`plainBody`); the parsed answer goes back as Nest serialises it. Nothing else:
 * no auth, no validation, no check of MySQL, no headers, metrics or logs of the API's. Measured beside
 * the bare proxy and the API, it splits the API's Node work per search into the hop, the frameworks
 * and the API's own. A process of its own (`node dist/bench/floor-framework.js <es-url> <index>
 * <port>`), until SIGTERM.
 */
import 'reflect-metadata';
import { Controller, Get, Module, Query } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { createSearchClient } from '@app/shared/search/search.client';
import { plainBody } from './lib/plain-query';

const [elasticsearch, index, port] = process.argv.slice(2) as [string, string, string];
const client = createSearchClient({ ELASTICSEARCH_URL: elasticsearch });

@Controller()
class ForwardController {
  @Get()
  search(@Query('q') q = ''): Promise<unknown> {
    return client.search({ index, ...plainBody(q) });
  }
}

@Module({ controllers: [ForwardController] })
class ForwardModule {}

async function main(): Promise<void> {
  const app = await NestFactory.create<NestFastifyApplication>(ForwardModule, new FastifyAdapter(), {
    logger: false,
  });
  app.enableShutdownHooks();
  await app.listen(Number(port), '127.0.0.1');
  console.log('listening');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
