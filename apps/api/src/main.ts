import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import { assertAuthConfigured, exitOnStartupError, loadConfig } from '@app/shared/config/load-config';
import { AppModule } from './app.module';

async function bootstrap(): Promise<void> {
  // Validate before anything connects, so a bad variable stops the process with its name.
  const config = loadConfig();
  assertAuthConfigured(config);
  const app = await NestFactory.create<NestExpressApplication>(AppModule, { bufferLogs: true });
  app.useLogger(app.get(Logger));
  app.disable('x-powered-by');
  app.enableShutdownHooks();
  await app.listen(config.PORT);
}

bootstrap().catch(exitOnStartupError);
