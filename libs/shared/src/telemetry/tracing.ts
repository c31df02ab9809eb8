import { tracingOn } from '../config/config.schema';
import { exitOnStartupError, loadConfig } from '../config/load-config';
import type { RunningSdk } from './sdk';

/** The service names of the two processes, unless OTEL_SERVICE_NAME says otherwise. */
export type TracedProcess = 'video-api' | 'video-worker';

let running: RunningSdk | undefined;

/**
 * Starts OpenTelemetry's SDK when OTEL_EXPORTER_OTLP_ENDPOINT is set, and otherwise loads none of
 * it (docs/tracing.md). The SDK sits behind a `require` of its own module so that a process
 * without the variable never reads a line of it: off costs nothing, not even the load. It must run
 * before the modules it patches are loaded, so each process's `main.ts` imports its `tracing.ts`
 * right after the heap rule's restart and before anything else. Validates the whole configuration
 * first: a bad variable, an OTEL_* one included, throws the ConfigError that names it before any
 * span could be made with it. Answers whether tracing is on.
 */
export function startTracing(service: TracedProcess, env: NodeJS.ProcessEnv = process.env): boolean {
  const config = loadConfig(env);
  if (!tracingOn(config) || running) return running !== undefined;
  // A synchronous, conditional load: an `import()` would settle after main.ts had already loaded
  // the modules the SDK's instrumentations must patch, and a static import would load it always.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startSdk } = require('./sdk') as typeof import('./sdk');
  running = startSdk(config.OTEL_SERVICE_NAME ?? service, config);
  return true;
}

/** `startTracing` for a process's entry point: a bad variable stops it (exit 78) with its name. */
export function startTracingOrExit(service: TracedProcess): void {
  try {
    startTracing(service);
  } catch (error) {
    exitOnStartupError(error);
  }
}

/**
 * Exports the spans still buffered and stops the SDK, if it runs: the last step of a graceful
 * shutdown (TelemetryModule), once the requests and jobs in flight have ended theirs.
 */
export async function stopTracing(): Promise<void> {
  const sdk = running;
  running = undefined;
  await sdk?.shutdown();
}
