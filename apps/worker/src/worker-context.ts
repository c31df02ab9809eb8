import { type DynamicModule, type INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ConfigModule } from '@app/shared/config/config.module';
import type { AppConfig } from '@app/shared/config/config.schema';
import { WorkerCoreModule } from './worker-core.module';

@Module({})
class WorkerContextModule {}

/** The root of a worker context: the configuration (`config`, or the environment's) and the core. */
export function workerContextModule(config?: AppConfig): DynamicModule {
  return { module: WorkerContextModule, imports: [ConfigModule.forRoot(config), WorkerCoreModule] };
}

/**
 * The worker's services as a Nest application context, without its job runner, port or metrics:
 * what a CLI command, a bench or a test uses (`get(VideoRepository)`, `get(PurgeSweepHandler)`).
 * On `config`, or the environment's. Only warnings and errors are logged, as a command prints its
 * own summary. `close()` releases every connection it opened (MySQL, Redis, Elasticsearch, S3).
 */
export function openWorkerContext(config?: AppConfig): Promise<INestApplicationContext> {
  // abortOnError: a failure to start (MySQL away) is thrown to the caller, not a process.abort().
  return NestFactory.createApplicationContext(workerContextModule(config), {
    logger: ['warn', 'error'],
    abortOnError: false,
  });
}

/** Runs `use` on a worker context, then closes it whatever happened. */
export async function withWorkerContext<T>(
  config: AppConfig | undefined,
  use: (context: INestApplicationContext) => Promise<T>,
): Promise<T> {
  const context = await openWorkerContext(config);
  try {
    return await use(context);
  } finally {
    await context.close();
  }
}
