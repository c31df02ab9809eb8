/**
 * The floor of any API built as this one must be: the bare forwarding proxy's work (bench/floor-proxy.ts),
 * but through the frameworks the user fixed. Nest on Fastify (the platform the API runs on, with its
 * defaults) takes `GET /?q=…`; the project's Elasticsearch client (`createSearchClient`) sends the
 * plain `multi_match` (`plainBody`); the parsed answer goes back as Nest serialises it. Nothing else:
 * no auth, no validation, no check of MySQL, no headers, metrics or logs of the API's. Measured beside
 * the bare proxy and the API, it splits the API's Node work per search into the hop, the frameworks
 * and the API's own.
 *
 * `layers` takes the frameworks away one by one, for the ladder (`bench/frameworks.bench.ts`):
 * `fastify` (Fastify alone in, the client out), `client` (node:http in, the client out), `json`
 * (node:http both ways, the answer still parsed and serialised). A process of its own
 * (`node dist/bench/floor-framework.js <port> <es-url> <index> [nest|fastify|client|json]`), until SIGTERM.
 */
import 'reflect-metadata';
import { createServer } from 'node:http';
import { text } from 'node:stream/consumers';
import { Controller, Get, Module, Query } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import Fastify from 'fastify';
import { createSearchClient } from '@app/shared/search/search.client';
import type { FrameworkLayers } from './lib/kit';
import { plainBody, plainSender } from './lib/plain-query';

const [port, elasticsearch, index, layers = 'nest'] = process.argv.slice(2) as [
  string,
  string,
  string,
  FrameworkLayers?,
];
const client = createSearchClient({ ELASTICSEARCH_URL: elasticsearch });
const viaClient = (q: string): Promise<unknown> => client.search({ index, ...plainBody(q) });

const send = plainSender(elasticsearch, index);
/** The plain query over node:http, its answer read and parsed: what the client does, bare. */
function viaNodeHttp(q: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    send(q, (answer) => {
      text(answer).then((json) => resolve(JSON.parse(json)), reject);
    }).on('error', reject);
  });
}

@Controller()
class ForwardController {
  @Get()
  search(@Query('q') q = ''): Promise<unknown> {
    return viaClient(q);
  }
}

@Module({ controllers: [ForwardController] })
class ForwardModule {}

async function listenNest(): Promise<void> {
  const app = await NestFactory.create<NestFastifyApplication>(ForwardModule, new FastifyAdapter(), {
    logger: false,
  });
  app.enableShutdownHooks();
  await app.listen(Number(port), '127.0.0.1');
}

async function listenFastify(): Promise<void> {
  const app = Fastify();
  app.get<{ Querystring: { q?: string } }>('/', (incoming) => viaClient(incoming.query.q ?? ''));
  await app.listen({ port: Number(port), host: '127.0.0.1' });
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
}

function listenNode(forward: (q: string) => Promise<unknown>): Promise<void> {
  const server = createServer((incoming, answer) => {
    const q = new URL(incoming.url ?? '/', 'http://floor').searchParams.get('q') ?? '';
    forward(q).then(
      (found) => answer.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(found)),
      () => answer.writeHead(502).end(),
    );
  });
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
  return new Promise((resolve) => server.listen(Number(port), '127.0.0.1', resolve));
}

const listen: Record<FrameworkLayers, () => Promise<void>> = {
  nest: listenNest,
  fastify: listenFastify,
  client: () => listenNode(viaClient),
  json: () => listenNode(viaNodeHttp),
};

listen[layers]().then(
  () => console.log('listening'),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
