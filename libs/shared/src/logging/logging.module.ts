import { Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';

/**
 * pino JSON logs for the application's own messages. Requests are logged by the HTTP layer
 * (`createHttpApp`), not by pino-http: its per-request async context made Node track every promise
 * of the process for the rest of its life, at a measurable cost on every search.
 */
@Module({
  imports: [
    LoggerModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        // No route gets pino-http's middleware.
        forRoutes: [],
        pinoHttp: { level: config.LOG_LEVEL },
      }),
    }),
  ],
})
export class LoggingModule {}
