import { type DynamicModule, Module } from '@nestjs/common';
import type { AppConfig } from './config.schema';
import { loadConfig } from './load-config';

export const APP_CONFIG = Symbol('APP_CONFIG');

/**
 * The configuration, for every module of a process (global). Each root module imports it once:
 * the processes with the environment's configuration, a tool (a test, a bench) with its own.
 */
@Module({})
export class ConfigModule {
  static forRoot(config?: AppConfig): DynamicModule {
    return {
      module: ConfigModule,
      global: true,
      // Read when the application starts, not when its module is declared: a bad variable is a startup error.
      providers: [{ provide: APP_CONFIG, useFactory: (): AppConfig => config ?? loadConfig() }],
      exports: [APP_CONFIG],
    };
  }
}
