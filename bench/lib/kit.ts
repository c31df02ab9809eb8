/**
 * The bench kit: the one way a benchmark reaches the system it measures. Every other module under
 * bench/ imports the product only through the shared library (`@app/shared/...`) and this kit
 * (ESLint refuses the rest), so what a bench may touch is listed here, once: its environment, a
 * worker context with the kit's own engine client, the product's processes, the repository's
 * paths (docs/performance.md, "How a bench reaches the system").
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import type { Client } from '@elastic/elasticsearch';
import type { InjectionToken } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { openWorkerContext, workerContextModule } from '@app/worker/worker-context';
import { signDevToken } from '@app/shared/auth/dev-token';
import type { AppConfig } from '@app/shared/config/config.schema';
import { loadConfig } from '@app/shared/config/load-config';
import { migrate } from '@app/shared/data-source';
import { createSearchClient } from '@app/shared/search/search.client';
import { DEVELOPMENT_KEYS } from '@app/shared/storage/storage.service';
import { servicesOf, type ServicesContext } from '@test/support/test-context';
import {
  ENTRY,
  freePort,
  ROOT,
  runProcess,
  startProcess,
  startService,
  waitForStatus,
  type RunningProcess,
  type StartedService,
} from '@test/support/processes';

export { SWEEPS } from '@app/worker/jobs/registry';
export { VideoImporter } from '@app/worker/import/video-importer';
export {
  ENTRY,
  freePort,
  ROOT,
  sleep,
  startProcess,
  type RunningProcess,
  type StartedService,
} from '@test/support/processes';
/**
 * The API's engine requests, as its search engine builds them: a bench sends them straight to
 * Elasticsearch to show what the API adds around them, and the relevance suite's baselines break
 * ties in the API's complete order.
 */
export { buildSearchRequests, completeSort } from '@app/api/search/engine/search-query.builder';
export { typoSuggestions } from '@app/api/search/engine/suggest-query.builder';

export const PATHS = {
  /** The sample the repository ships (CC0, data/README.md). */
  sample: resolve(ROOT, 'data/pyvideo.jsonl.gz'),
  /** Generated data, reused between runs (git-ignored). */
  cache: resolve(ROOT, '.cache/bench'),
  docs: resolve(ROOT, 'docs'),
  /** The reindex baseline's script, built (bench/raw-bulk.ts). */
  rawBulk: resolve(ROOT, 'dist/bench/raw-bulk.js'),
  /** The metrics-scrape step's scraper, built (bench/scraper.ts). */
  scraper: resolve(ROOT, 'dist/bench/scraper.js'),
  /** The search step's floor: a bare forwarding proxy, built (bench/floor-proxy.ts). */
  floorProxy: resolve(ROOT, 'dist/bench/floor-proxy.js'),
  /** The same hop through Nest, Fastify and the Elasticsearch client, built (bench/floor-framework.ts). */
  floorFramework: resolve(ROOT, 'dist/bench/floor-framework.js'),
  /** The delete step's floor: the raw soft delete behind a bare HTTP server, built (bench/floor-delete.ts). */
  floorDelete: resolve(ROOT, 'dist/bench/floor-delete.js'),
  /** The tracing step's collector, which drops every export, built (bench/otlp-sink.ts). */
  otlpSink: resolve(ROOT, 'dist/bench/otlp-sink.js'),
};

/**
 * The bench's own database, index alias, bucket and Redis database, so that a running demo and the
 * tests keep their data; `BENCH_<NAME>` overrides one. No rate limit: the load is the point.
 */
const DEFAULTS: Record<string, string> = {
  NODE_ENV: 'production',
  LOG_LEVEL: 'warn',
  DATABASE_URL: 'mysql://root@127.0.0.1:3306/videos_bench',
  // A Redis database of its own: the bench empties it, and the demo's queues live in database 0.
  REDIS_URL: 'redis://127.0.0.1:6379/3',
  ELASTICSEARCH_INDEX: 'videos_bench',
  S3_BUCKET: 'videos-bench',
  // In production without keys the SDK looks for the pod's identity: the local store's keys, given.
  S3_ACCESS_KEY_ID: DEVELOPMENT_KEYS.accessKeyId,
  S3_SECRET_ACCESS_KEY: DEVELOPMENT_KEYS.secretAccessKey,
  JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123',
  RATE_LIMIT_POINTS: '0',
};

export const BENCH_ENV: Record<string, string> = Object.fromEntries(
  Object.entries(DEFAULTS).map(([name, value]) => [name, process.env[`BENCH_${name}`] ?? value]),
);

export function applyBenchEnv(): AppConfig {
  for (const [name, value] of Object.entries(BENCH_ENV)) process.env[name] = value;
  return loadConfig();
}

export interface BenchContext extends ServicesContext {
  /** The kit's own Elasticsearch client, for baselines that talk to the engine directly. */
  engine: Client;
}

/**
 * The services of a CLI command (`openWorkerContext`) and the kit's engine client, on whatever
 * `config` names; with `replace`, those providers are built by their factories instead (through
 * Nest's testing module, which is what replaces a provider inside the modules): what the bench
 * measures around, not what it measures.
 */
export async function openContext(
  config: AppConfig,
  replace: { provide: InjectionToken; useFactory: () => unknown }[] = [],
): Promise<BenchContext> {
  let app;
  if (replace.length === 0) app = await openWorkerContext(config);
  else {
    let builder = Test.createTestingModule({ imports: [workerContextModule(config)] });
    for (const { provide, useFactory } of replace)
      builder = builder.overrideProvider(provide).useFactory({ factory: useFactory });
    app = await (await builder.compile()).init();
  }
  const context = servicesOf(app, config);
  const engine = createSearchClient(config);
  return {
    ...context,
    engine,
    async close() {
      await engine.close();
      await context.close();
    },
  };
}

/** `openContext` on the bench's environment, with its schema, bucket and index alias in place. */
export async function openBenchContext(config: AppConfig): Promise<BenchContext> {
  await migrate(config);
  const context = await openContext(config);
  await context.storage.ensureBucket();
  await context.indexAdmin.ensureAlias();
  return context;
}

export function benchToken(): string {
  return signDevToken({
    secret: BENCH_ENV.JWT_SECRET!,
    sub: 'bench',
    roles: ['admin'],
    ttlSeconds: 6 * 3600,
  });
}

/**
 * The API on free ports: its public one (`url`) and its metrics port (`metrics`). Built from this
 * checkout, or from another built one (`checkout`, a baseline's).
 */
export function startApi(env: Record<string, string> = {}, checkout = ROOT): Promise<StartedService> {
  return startService('api', { ...BENCH_ENV, ...env }, resolve(checkout, relative(ROOT, ENTRY.api)));
}

/** The layers the frameworks' floor (bench/floor-framework.ts) runs on, from all of the API's to none. */
export type FrameworkLayers = 'nest' | 'fastify' | 'client' | 'json';

/** A search floor: the bare proxy (bench/floor-proxy.ts), or the frameworks' floor on some of its layers. */
export type SearchFloor = 'bare' | FrameworkLayers;

/** The path a search floor answers `q` on. */
export const floorPath = (q: string): string => `/?q=${encodeURIComponent(q)}`;

/**
 * A helper process of the bench's own (a floor, the collector) started with its port as its first
 * argument, once `GET <readyPath>` answers 200; killed if it never does.
 */
async function startHelper(
  entry: string,
  readyPath: string,
  args: string[] = [],
): Promise<{ url: string; process: RunningProcess }> {
  const port = await freePort();
  const running = startProcess(entry, BENCH_ENV, [String(port), ...args]);
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForStatus(`${url}${readyPath}`, 200, 30_000);
  } catch (error) {
    await running.stop('SIGKILL');
    throw error;
  }
  return { url, process: running };
}

/** The last line a process printed, parsed: the figures a helper or a script prints as it ends. */
export function lastJsonLine<T>(output: string): T {
  return JSON.parse(output.trim().split('\n').pop()!) as T;
}

/**
 * The search floors on free ports, forwarding the plain query to `elasticsearch`'s `index`; `stop`
 * stops every one (also those started before a failure).
 */
export async function startSearchFloors<F extends SearchFloor>(
  floors: readonly F[],
  elasticsearch: string,
  index: string,
): Promise<{ url: Record<F, string>; stop(): Promise<void> }> {
  const started: RunningProcess[] = [];
  const url = {} as Record<F, string>;
  const stop = async () => void (await Promise.all(started.map((floor) => floor.stop())));
  try {
    for (const floor of floors) {
      const [entry, ...layers] =
        floor === 'bare' ? ([PATHS.floorProxy] as const) : ([PATHS.floorFramework, floor] as const);
      const helper = await startHelper(entry, floorPath('ready'), [elasticsearch, index, ...layers]);
      started.push(helper.process);
      url[floor] = helper.url;
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, stop };
}

/** The delete step's floor (bench/floor-delete.ts) on a free port, on the bench's stores. */
export const startFloorDelete = () => startHelper(PATHS.floorDelete, '/ready');

/**
 * The tracing step's collector (bench/otlp-sink.ts) on a free port: `url` for
 * OTEL_EXPORTER_OTLP_ENDPOINT; `stop` answers with the exports it received and their bytes.
 */
export async function startOtlpSink(): Promise<{
  url: string;
  stop(): Promise<{ requests: number; bytes: number }>;
}> {
  const sink = await startHelper(PATHS.otlpSink, '/v1/traces');
  return {
    url: sink.url,
    async stop() {
      await sink.process.stop();
      return lastJsonLine(sink.process.output());
    },
  };
}

export async function startWorker(env: Record<string, string> = {}): Promise<RunningProcess> {
  return (await startService('worker', { ...BENCH_ENV, ...env })).process;
}

/** GNU time, whose `-v` report gives a process's peak RSS as the memory target names it. */
const GNU_TIME = '/usr/bin/time';

/**
 * Runs a built entry point to its end with the bench environment under `/usr/bin/time -v`: its
 * output and peak RSS ("Maximum resident set size"). An exit with an error fails the call.
 */
export async function runWithPeakRss(
  entry: string,
  args: string[],
): Promise<{ output: string; peakRssBytes: number }> {
  if (!existsSync(GNU_TIME)) {
    throw new Error(
      `the bench reads peak RSS from GNU time (${GNU_TIME}): install it (Debian: apt-get install time)`,
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'bench-time-'));
  const report = join(dir, 'time.txt');
  try {
    const run = await runProcess(entry, args, BENCH_ENV, [GNU_TIME, '-v', '-o', report]);
    if (run.code !== 0)
      throw new Error(`${entry} ${args.join(' ')} exited ${String(run.code)}:\n${run.output.slice(-2000)}`);
    const text = readFileSync(report, 'utf8');
    const kilobytes = /Maximum resident set size \(kbytes\): (\d+)/.exec(text);
    if (!kilobytes) throw new Error(`no peak RSS in ${GNU_TIME}'s report:\n${text}`);
    return { output: run.output, peakRssBytes: Number(kilobytes[1]) * 1024 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A running process's peak RSS so far (`VmHWM`, the high-water mark GNU time reads at exit), for
 * processes the bench stops itself: GNU time does not pass a SIGTERM on to them.
 */
export async function peakRssSoFar(pid: number): Promise<number> {
  const match = /VmHWM:\s+(\d+) kB/.exec(await readFile(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmHWM in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}
