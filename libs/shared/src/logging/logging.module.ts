import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { type DynamicModule, Module, RequestMethod } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { APP_CONFIG, ConfigModule } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';

/** pino JSON logs with a request id; credentials never reach a log line. */
@Module({})
export class LoggingModule {
  /** Every API request is logged with its id, and the log lines it causes carry that id. */
  static forApi(): DynamicModule {
    return LoggingModule.create(true);
  }

  /**
   * The worker's HTTP port only answers probes and metric scrapes, so they are not logged. That
   * also keeps pino-http's per-request async context out of the process: once a request had
   * entered one, Node tracked every promise of the job code for the rest of its life.
   */
  static forWorker(): DynamicModule {
    return LoggingModule.create(false);
  }

  private static create(logRequests: boolean): DynamicModule {
    return {
      module: LoggingModule,
      imports: [
        LoggerModule.forRootAsync({
          imports: [ConfigModule],
          inject: [APP_CONFIG],
          useFactory: (config: AppConfig) => ({
            ...(logRequests ? {} : { exclude: [{ path: '{*all}', method: RequestMethod.ALL }] }),
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
              autoLogging: {
                ignore: (request: IncomingMessage) => request.url?.startsWith('/health') ?? false,
              },
            },
          }),
        }),
      ],
    };
  }
}
