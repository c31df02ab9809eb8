import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger, PinoLogger } from 'nestjs-pino';
import type { AppConfig } from '../config/config.schema';
import { MetricsService } from '../metrics/metrics.service';

/** The caller's `X-Request-Id` when it is a sane token, else a new UUID; jobs carry it on. */
export function requestId(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && /^[\w.-]{1,128}$/.test(given) ? given : randomUUID();
}

/**
 * A Nest application on Fastify, for the API and the worker's probe port. Fastify costs about half
 * the CPU per request of Express under Nest (docs/benchmarking.md). Every request is timed for
 * `/metrics` by its route pattern (never the raw path, so ids do not explode the series); with
 * `logRequests`, each one also leaves one log line with its id, status and duration.
 */
export async function createHttpApp(
  module: Type<unknown>,
  config: Pick<AppConfig, 'HTTP_REQUEST_TIMEOUT_MS'>,
  { logRequests }: { logRequests: boolean },
): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    requestTimeout: config.HTTP_REQUEST_TIMEOUT_MS,
    genReqId: requestId,
    requestIdHeader: false,
    routerOptions: {
      // An over-long id is a 400 from validation, not a 404 from the router.
      maxParamLength: 2_048,
      ignoreTrailingSlash: true,
    },
  });
  // No route takes a body: whatever a client sends is read and ignored, never a reason to fail.
  const app = await NestFactory.create<NestFastifyApplication>(module, adapter, {
    bufferLogs: true,
    bodyParser: false,
  });
  const fastify = app.getHttpAdapter().getInstance();
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, _body, done) => done(null, undefined));
  app.useLogger(app.get(Logger));
  const metrics = app.get(MetricsService);
  const log = await app.resolve(PinoLogger);
  log.setContext('http');
  fastify.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url;
    const status = reply.statusCode;
    metrics.httpDuration.observe(
      { method: request.method, route: route ?? 'unmatched', status: String(status) },
      reply.elapsedTime / 1000,
    );
    if (logRequests && !request.url.startsWith('/health')) {
      const line = {
        reqId: request.id,
        req: { method: request.method, url: request.url },
        res: { statusCode: status },
        responseTime: Math.round(reply.elapsedTime),
      };
      if (status >= 500) log.error(line, 'request errored');
      else log.info(line, 'request completed');
    }
    done();
  });
  app.enableShutdownHooks();
  return app;
}
