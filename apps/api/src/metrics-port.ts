import type { AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import fastify from 'fastify';
import { PinoLogger } from 'nestjs-pino';
import { problemBody, sendProblem } from '@app/shared/http/problem';
import { MetricsService } from '@app/shared/metrics/metrics.service';

/**
 * The API's `GET /metrics` on a port of its own (`METRICS_PORT`), never on the public one
 * (docs/contract.md §9): a scrape tells routes, traffic and queue sizes, which is for operators.
 * It listens on `host` (INTERNAL_HOST) only, so it is not reachable from where the public port is
 * unless the deployment says so. The server does nothing else, so it needs no authentication, and
 * it closes with the application. Port 0 lets the system choose one, which the start line names.
 */
export async function serveMetricsPort(
  app: NestFastifyApplication,
  port: number,
  host: string,
): Promise<void> {
  const metrics = app.get(MetricsService);
  const server = fastify();
  // The text is encoded once per serialisation, not once per scrape (it is about 14 KB).
  let encoded: { text: string; body: Buffer } | undefined;
  server.get('/metrics', async (_request, reply) => {
    const text = await metrics.scrape();
    if (encoded?.text !== text) encoded = { text, body: Buffer.from(text) };
    return reply.type(metrics.registry.contentType).send(encoded.body);
  });
  server.setNotFoundHandler((_request, reply) =>
    sendProblem(reply, problemBody(404, 'This port serves GET /metrics only.')),
  );
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onClose', () => server.close());
  await server.listen({ port, host });
  const bound = (server.server.address() as AddressInfo).port;
  const log = await app.resolve(PinoLogger);
  log.setContext('API');
  log.info({ metricsPort: bound, host }, `metrics on port ${bound}`);
}
