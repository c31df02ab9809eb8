import { readFile } from 'node:fs/promises';
import { signDevToken } from '@app/shared/auth/dev-token';
import type { AppConfig } from '@app/shared/config/config.schema';
import { loadConfig } from '@app/shared/config/load-config';
import { migrate } from '@app/shared/database/data-source';
import { openCliContext, type CliContext } from '../../apps/worker/src/cli/cli-context';
import { startService, type RunningProcess } from '../../test/support/processes';

/**
 * Benchmarks run on the local services with their own database, index alias and bucket, so a
 * running demo and the tests keep their data. No rate limit: the load is the point.
 * `BENCH_<NAME>` overrides one, so that two benches on the same services keep apart too.
 */
const DEFAULTS: Record<string, string> = {
  NODE_ENV: 'production',
  LOG_LEVEL: 'warn',
  DATABASE_URL: 'mysql://root@127.0.0.1:3306/videos_bench',
  // A Redis database of its own: the bench empties it, and the demo's queues live in database 0.
  REDIS_URL: 'redis://127.0.0.1:6379/3',
  ELASTICSEARCH_INDEX: 'videos_bench',
  S3_BUCKET: 'videos-bench',
  JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123',
  RATE_LIMIT_POINTS: '0',
};

export const BENCH_ENV: Record<string, string> = Object.fromEntries(
  Object.entries(DEFAULTS).map(([name, value]) => [name, process.env[`BENCH_${name}`] ?? value]),
);

export function applyBenchEnv(overrides: Record<string, string> = {}): AppConfig {
  for (const [name, value] of Object.entries({ ...BENCH_ENV, ...overrides })) process.env[name] = value;
  return loadConfig();
}

export async function openBenchContext(config: AppConfig): Promise<CliContext> {
  await migrate(config);
  const context = await openCliContext(config);
  await context.storage.ensureBucket();
  await context.search.ensureAlias();
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

export function startApi(
  env: Record<string, string> = {},
): Promise<{ url: string; process: RunningProcess }> {
  return startService('api', { ...BENCH_ENV, ...env });
}

export async function startWorker(env: Record<string, string> = {}): Promise<RunningProcess> {
  return (await startService('worker', { ...BENCH_ENV, ...env })).process;
}

/** Samples a process's peak resident memory (VmHWM) until it exits; Linux only. */
export function peakRss(pid: number): { stop(): Promise<number> } {
  let peak = 0;
  const sample = async () => {
    try {
      const status = await readFile(`/proc/${pid}/status`, 'utf8');
      const match = /VmHWM:\s+(\d+) kB/.exec(status);
      if (match) peak = Math.max(peak, Number(match[1]) * 1024);
    } catch {
      // The process has exited: the last sample stands.
    }
  };
  const timer = setInterval(() => void sample(), 100);
  return {
    async stop() {
      await sample();
      clearInterval(timer);
      return peak;
    },
  };
}
