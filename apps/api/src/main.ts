import './heap';
import './tracing';
import 'reflect-metadata';
import { assertAuthConfigured, exitOnStartupError, loadConfig } from '@app/shared/config/load-config';
import { createHttpApp, listen } from '@app/shared/http-app';
import { mountQueueDashboard } from './admin/queue-dashboard';
import { refuseUnauthenticated } from './auth/authenticate';
import { mountApiDocs } from './api-docs';
import { AppModule } from './app.module';
import { apiDocument } from './openapi';
import { serveMetricsPort } from './metrics-port';

async function bootstrap(): Promise<void> {
  // Validate before anything connects, so a bad variable stops the process with its name.
  const config = loadConfig();
  assertAuthConfigured(config);
  const app = await createHttpApp(AppModule, config, { logRequests: true, refuseUnauthenticated });
  await mountQueueDashboard(app, config);
  await mountApiDocs(app, apiDocument());
  // Before the public port: its close hook must be added before that server starts.
  await serveMetricsPort(app, config.METRICS_PORT, config.INTERNAL_HOST);
  await listen(app, config.PORT, 'API');
}

bootstrap().catch(exitOnStartupError);
