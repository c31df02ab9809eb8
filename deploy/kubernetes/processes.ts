/**
 * The API and the worker as Kubernetes runs them: entry point, ports, and how long each may take to
 * stop, from the drain its own code does after SIGTERM (docs/running.md, "Shutdown").
 */
import type { Settings } from './overlays.ts';

/**
 * Seconds every process gets, after its own drain, to close its MySQL pool, its Redis and
 * Elasticsearch clients and (the worker) hand jobs still running back to the queue.
 */
const CLOSE_SECONDS = 15;

/**
 * A terminating API pod leaves the Services' endpoints at once, but load balancers and kube-proxy
 * learn it a few seconds later: it keeps taking new connections that long before SIGTERM makes it
 * refuse them (connections already open get the draining 503 and retry elsewhere).
 */
const API_PRE_STOP_SECONDS = 5;

interface ProcessPort {
  name: 'http' | 'metrics';
  setting: 'PORT' | 'METRICS_PORT' | 'WORKER_PORT';
}

/** Where every process answers Prometheus (its MetricsController), on the port named `metrics`. */
export const METRICS_PATH = '/metrics';

interface Process {
  /** The entry point in the image (the Dockerfile's build). */
  entry: string;
  /** The first port serves the probes. */
  ports: readonly ProcessPort[];
  /** The setting that bounds the drain after SIGTERM (docs/running.md, "Shutdown"). */
  drain: 'HTTP_REQUEST_TIMEOUT_MS' | 'SHUTDOWN_TIMEOUT_MS';
  preStopSeconds: number;
}

export const PROCESSES: Record<'api' | 'worker', Process> = {
  api: {
    entry: 'dist/apps/api/src/main.js',
    ports: [
      // The API, its docs and the queue dashboard (/admin/queues).
      { name: 'http', setting: 'PORT' },
      // GET /metrics, kept off the public port (docs/contract.md §9).
      { name: 'metrics', setting: 'METRICS_PORT' },
    ],
    // In-flight requests finish. HTTP_REQUEST_TIMEOUT_MS bounds receiving a request (Node's
    // requestTimeout), not answering it: a handler waiting on a store is bounded by that
    // store client's timeouts (Elasticsearch: 10 s a try), which the closing margin also covers.
    drain: 'HTTP_REQUEST_TIMEOUT_MS',
    preStopSeconds: API_PRE_STOP_SECONDS,
  },
  worker: {
    entry: 'dist/apps/worker/src/main.js',
    // Health and metrics on one port, named `metrics` like the API's so that one scrape
    // configuration fits both; no traffic to drain, so no pause before SIGTERM.
    ports: [{ name: 'metrics', setting: 'WORKER_PORT' }],
    // Active jobs get SHUTDOWN_TIMEOUT_MS, then go back to the queue.
    drain: 'SHUTDOWN_TIMEOUT_MS',
    preStopSeconds: 0,
  },
};

const CLI = ['node', 'dist/apps/worker/src/cli.js'];

/**
 * What a first install, and every upgrade, runs before the processes serve: the migrations, the
 * bucket and the search alias (`cli setup`, idempotent: a second run changes nothing).
 */
export const INSTALL_COMMAND = [...CLI, 'setup'];

/** A rebuild of the search index into a new index, the alias swapped at its end (`cli reindex`). */
export const REINDEX_COMMAND = [...CLI, 'reindex', '--no-progress'];

/** Longer than the pause before SIGTERM, the drain and the closing together. */
export function terminationGracePeriodSeconds(shape: Process, settings: Settings): number {
  return shape.preStopSeconds + Math.ceil(Number(settings[shape.drain]) / 1000) + CLOSE_SECONDS;
}
