import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { APP_CONFIG, ConfigModule } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';

/** pino JSON logs with a request id; credentials never reach a log line. */
@Module({
  imports: [
    LoggerModule.forRootAsync({
      imports: [ConfigModule],
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        pinoHttp: {
          level: config.LOG_LEVEL,
          genReqId: (request: IncomingMessage) => {
            const given = request.headers['x-request-id'];
            return typeof given === 'string' && /^[\w.-]{1,128}$/.test(given) ? given : randomUUID();
          },
          redact: {
            paths: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'],
            remove: true,
          },
          autoLogging: { ignore: (request: IncomingMessage) => request.url?.startsWith('/health') ?? false },
        },
      }),
    }),
  ],
})
export class LoggingModule {}
