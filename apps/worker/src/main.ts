import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import { exitOnStartupError, loadConfig } from '@app/shared/config/load-config';
import { httpMetricsMiddleware } from '@app/shared/metrics/http-metrics.middleware';
import { MetricsService } from '@app/shared/metrics/metrics.service';
import { WorkerModule } from './worker.module';

/** The worker process: job processors and schedules, plus health on its own port. */
async function bootstrap(): Promise<void> {
  const config = loadConfig();
  const app = await NestFactory.create<NestExpressApplication>(WorkerModule, { bufferLogs: true });
  app.useLogger(app.get(Logger));
  app.use(httpMetricsMiddleware(app.get(MetricsService)));
  app.enableShutdownHooks();
  await app.listen(config.WORKER_PORT);
}

bootstrap().catch(exitOnStartupError);
