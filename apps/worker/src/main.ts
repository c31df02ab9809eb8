import './heap';
import './tracing';
import 'reflect-metadata';
import { exitOnStartupError, loadConfig } from '@app/shared/config/load-config';
import { createHttpApp, listen } from '@app/shared/http-app';
import { WorkerModule } from './worker.module';

/** The worker process: job processors and schedules, plus health and metrics on its own port. */
async function bootstrap(): Promise<void> {
  const config = loadConfig();
  // Probes and scrapes are not worth a log line each.
  const app = await createHttpApp(WorkerModule, config, { logRequests: false });
  // Probes and scrapes only: never on a public interface (docs/contract.md §9).
  await listen(app, config.WORKER_PORT, 'worker', config.INTERNAL_HOST);
}

bootstrap().catch(exitOnStartupError);
