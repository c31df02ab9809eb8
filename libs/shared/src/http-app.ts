import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Logger, PinoLogger } from 'nestjs-pino';
import type { AppConfig } from './config/config.schema';
import { MetricsService } from './metrics/metrics.service';
import { useAnswerHeaders } from './http/answer-headers';
import { parseQueryString, readablePath } from './http/percent-encoding';
import { problemBody, ProblemException, sendProblem, type ProblemBody } from './http/problem';

/** The caller's `X-Request-Id` when it is a sane token, else a new UUID; jobs carry it on. */
export function requestId(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && /^[\w.-]{1,128}$/.test(given) ? given : randomUUID();
}

/** The longest path parameter the router reads; an id longer than this is refused as unreadable. */
const MAX_PARAM_LENGTH = 2_048;

export interface HttpAppOptions {
  /** One log line per request (the API); the worker's probe port logs none. */
  logRequests: boolean;
  /**
   * Asked first when the router cannot read a path (broken percent-encoding, an over-long
   * parameter), so no route is known: the refusal to send instead of the 400, if any. The API
   * answers 401 to a caller without a valid token before saying anything else (docs/contract.md §3).
   */
  refuseUnauthenticated?: (
    request: FastifyRequest,
    reply: FastifyReply,
  ) => Promise<ProblemException | undefined>;
}

/**
 * Where a request the router cannot read is sent on. Fastify answers those before any hook runs, so
 * they would leave without the common headers, a log line or a metric; sent on to a route of their
 * own, they get all three like every other answer. Asked for directly, the path is not found.
 */
const UNREADABLE_PATH = '/.unreadable-path';

/** Why the router refused each request sent on to UNREADABLE_PATH. */
const unreadable = new WeakMap<IncomingMessage, FastifyError>();

/** The router's own errors, as problem documents like every other answer (docs/contract.md §4). */
async function answerUnreadablePath(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
  refuseUnauthenticated: HttpAppOptions['refuseUnauthenticated'],
): Promise<FastifyReply> {
  const problem =
    (await refuseUnauthenticated?.(request, reply)) ??
    new ProblemException(
      400,
      error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? `A path segment is longer than ${MAX_PARAM_LENGTH} characters.`
        : 'The path is not valid percent-encoding.',
    );
  return sendProblem(reply, problem.body, problem.headers);
}

/**
 * A Nest application on Fastify, for the API and the worker's probe port. Fastify, because it costs
 * less CPU per request than Express under Nest (docs/performance.md, the frameworks' floor). Every request is timed for
 * `/metrics` by its route pattern (never the raw path, so ids do not explode the series); with
 * `logRequests`, each one also leaves one log line with its id, status and duration.
 */
export async function createHttpApp(
  module: Type<unknown>,
  config: Pick<AppConfig, 'HTTP_REQUEST_TIMEOUT_MS' | 'HTTP_HEADERS_TIMEOUT_MS'>,
  { logRequests, refuseUnauthenticated }: HttpAppOptions,
): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    // A client that trickles its headers or its body holds a socket, not memory, and only this long:
    // Node checks every second rather than every 30 s.
    requestTimeout: config.HTTP_REQUEST_TIMEOUT_MS,
    http: {
      headersTimeout: Math.min(config.HTTP_HEADERS_TIMEOUT_MS, config.HTTP_REQUEST_TIMEOUT_MS),
      connectionsCheckingInterval: 1_000,
    },
    genReqId: requestId,
    requestIdHeader: false,
    // Turned away while draining by the hook below, as a problem document rather than Fastify's own.
    return503OnClosing: false,
    routerOptions: {
      // An id up to this long is a 400 from validation; a longer one, the router's 400 below.
      maxParamLength: MAX_PARAM_LENGTH,
      ignoreTrailingSlash: true,
      querystringParser: parseQueryString,
    },
    frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      const raw: IncomingMessage & { originalUrl?: string } = request.raw;
      // The log line keeps the path the client asked for (Fastify's `request.originalUrl`).
      raw.originalUrl = raw.url;
      // A segment that does not decode reaches its route as a value validation refuses by name.
      const readable = error.code === 'FST_ERR_BAD_URL' ? readablePath(raw.url ?? '') : undefined;
      if (!readable) unreadable.set(raw, error);
      raw.url = readable ?? UNREADABLE_PATH;
      adapter.getInstance().routing(raw, reply.raw);
    },
  });
  const app = await NestFactory.create<NestFastifyApplication>(module, adapter, {
    bufferLogs: true,
    bodyParser: false,
  });
  const fastify = app.getHttpAdapter().getInstance();
  // A route that takes a body says how large (`acceptBodies`, or its `BodyConfig`) and parses it
  // itself, from the bytes; any other body was refused unread by `refuseBodies`, so what is left to
  // parse is empty.
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body, done) =>
    done(null, bodyConfig(request)?.bodyLimit ? body : undefined),
  );
  // A route's `BodyConfig` sets the limit Fastify reads a body to, as `acceptBodies` does for a scope.
  fastify.addHook('onRoute', (route) => {
    const limit = (route.config as BodyConfig | undefined)?.bodyLimit;
    if (limit) route.bodyLimit = limit;
  });
  app.useLogger(app.get(Logger));
  // Before the hooks below, so their answers carry them too.
  useAnswerHeaders(fastify);
  refuseBodies(fastify);
  admitBodies(fastify);
  fastify.all(UNREADABLE_PATH, async (request, reply) => {
    const error = unreadable.get(request.raw);
    if (!error) return reply.callNotFound();
    // The token check never rejects; should anything else fail, the answer is still a problem.
    return answerUnreadablePath(error, request, reply, refuseUnauthenticated).catch(() =>
      sendProblem(reply, problemBody(500, 'The request could not be completed.')),
    );
  });
  // After SIGTERM the server takes no new connections, but a request can still arrive on one that
  // is open (keep-alive, pipelining). It gets a 503 with `Retry-After` and, from Fastify, a
  // `Connection: close`, so the client retries on another instance; requests already in flight finish.
  let draining = false;
  fastify.addHook('preClose', (done) => {
    draining = true;
    done();
  });
  fastify.addHook('onRequest', (_request, reply, done) => {
    if (!draining) return done();
    void sendProblem(reply, problemBody(503, 'This instance is shutting down; try again.'), {
      'Retry-After': '1',
    });
  });
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
    if (logRequests && !request.originalUrl.startsWith('/health')) {
      const line = {
        reqId: request.id,
        req: { method: request.method, url: request.originalUrl },
        // Not under `res`: pino-http's serializer for that key reads a live response and logged null.
        statusCode: status,
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

/**
 * Route config (Fastify's `config`; on a Nest handler, `@RouteConfig`) of a route that takes a body:
 * the most bytes it reads, and who may send one, asked before a byte of it is read.
 */
export interface BodyConfig {
  bodyLimit?: number;
  /** The refusal for a caller who may not send this route a body (a 401, a 403), or nothing. */
  admitBody?: (request: FastifyRequest, reply: FastifyReply) => Promise<ProblemException | undefined>;
}

const bodyConfig = (request: FastifyRequest) => request.routeOptions.config as BodyConfig | undefined;

/**
 * Every route of `scope` registered after this takes a body of at most `bytes` (Bull Board's
 * actions, for one). Bodies are refused everywhere else (`refuseBodies`).
 */
export function acceptBodies(scope: FastifyInstance, bytes: number): void {
  scope.addHook('onRoute', (route) => {
    route.config = { ...route.config, bodyLimit: bytes } as typeof route.config;
    route.bodyLimit = bytes;
  });
}

/**
 * A body a route does not take, or larger than it takes, is refused before a byte of it is read
 * (docs/contract.md §4): 413, and the connection closed, so what the client goes on sending is
 * never buffered. It comes before authentication, or a caller without a token could make every
 * process hold what it announced.
 */
function refuseBodies(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    const limit = bodyConfig(request)?.bodyLimit ?? 0;
    const length = Number(request.headers['content-length'] ?? 0);
    const unbounded = request.headers['transfer-encoding'] !== undefined && limit === 0;
    if (!unbounded && !(length > limit)) return done();
    const detail =
      limit === 0
        ? 'This route takes no request body.'
        : `The request body is larger than this route takes (${limit} bytes).`;
    void refuseUnread(request, reply, problemBody(413, detail));
  });
}

/**
 * Answers without reading the body: nothing more is read from this socket, what the client goes on
 * sending stays in the kernel's buffer, and is dropped with the connection once the answer is out
 * (Node would read it to the end).
 */
function refuseUnread(
  request: FastifyRequest,
  reply: FastifyReply,
  body: ProblemBody,
  headers: Record<string, string> = {},
): FastifyReply {
  request.raw.pause();
  reply.raw.once('finish', () => request.raw.socket.destroy());
  return sendProblem(reply, body, { ...headers, Connection: 'close' });
}

/**
 * A route that takes a body from some callers only (`BodyConfig.admitBody`) asks who is calling
 * before a byte of it is read, so a caller who may not send it cannot make a process hold it.
 */
function admitBodies(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', async (request, reply) => {
    const refusal = await bodyConfig(request)?.admitBody?.(request, reply);
    if (refusal) return refuseUnread(request, reply, refusal.body, refusal.headers);
  });
}

/**
 * Listens on `host` (every interface by default) and says so once, with the Node.js version the
 * process runs on (the project pins Node 24; `/metrics` carries it too, as `nodejs_version_info`).
 */
export async function listen(
  app: NestFastifyApplication,
  port: number,
  name: string,
  host = '0.0.0.0',
): Promise<void> {
  await app.listen(port, host);
  const log = await app.resolve(PinoLogger);
  log.setContext(name);
  log.info({ port, host, node: process.version }, `listening on port ${port} (Node.js ${process.version})`);
}
