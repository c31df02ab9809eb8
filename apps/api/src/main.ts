import 'reflect-metadata';
import type { Server } from 'node:http';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import { assertAuthConfigured, exitOnStartupError, loadConfig } from '@app/shared/config/load-config';
import { httpMetricsMiddleware } from '@app/shared/metrics/http-metrics.middleware';
import { MetricsService } from '@app/shared/metrics/metrics.service';
import { mountQueueDashboard } from './admin/queue-dashboard';
import { AppModule } from './app.module';
import { mountApiDocs } from './openapi';

async function bootstrap(): Promise<void> {
  // Validate before anything connects, so a bad variable stops the process with its name.
  const config = loadConfig();
  assertAuthConfigured(config);
  const app = await NestFactory.create<NestExpressApplication>(AppModule, { bufferLogs: true });
  app.useLogger(app.get(Logger));
  app.disable('x-powered-by');
  // Every answer is computed per request: hashing each body for an ETag nobody revalidates costs CPU.
  app.set('etag', false);
  app.use(httpMetricsMiddleware(app.get(MetricsService)));
  mountQueueDashboard(app, config);
  mountApiDocs(app);
  app.enableShutdownHooks();
  const server: Server = app.getHttpServer();
  server.requestTimeout = config.HTTP_REQUEST_TIMEOUT_MS;
  await app.listen(config.PORT);
}

bootstrap().catch(exitOnStartupError);
