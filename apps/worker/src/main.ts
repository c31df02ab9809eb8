import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { exitOnStartupError, loadConfig } from '@app/shared/config/load-config';
import { WorkerModule } from './worker.module';

/** The worker process: job processors and schedules, plus health on its own port. */
async function bootstrap(): Promise<void> {
  const config = loadConfig();
  const app = await NestFactory.create(WorkerModule, { bufferLogs: true });
  app.useLogger(app.get(Logger));
  app.enableShutdownHooks();
  await app.listen(config.WORKER_PORT);
}

bootstrap().catch(exitOnStartupError);
