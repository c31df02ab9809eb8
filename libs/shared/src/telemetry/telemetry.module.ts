import { Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { stopTracing } from './tracing';

/**
 * Nest calls this after the HTTP server has answered its last request and the worker's jobs have
 * ended (or been handed back), so the spans they ended are in the SDK's buffer: they are exported
 * before the process exits instead of being lost with it.
 */
@Injectable()
class TracingShutdown implements OnApplicationShutdown {
  onApplicationShutdown(): Promise<void> {
    return stopTracing();
  }
}

/** The API's and the worker's tracing, which each `main.ts` started (`startTracingOrExit`): its flush at shutdown. */
@Module({ providers: [TracingShutdown] })
export class TelemetryModule {}
