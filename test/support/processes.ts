import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { withTimeout } from '../../libs/shared/src/util/with-timeout.ts';
import { freePort, waitFor } from '../../scripts/services/wait.ts';

// Waiting and free ports are the services module's: tests, benches and `services:up` wait alike.
export { freePort, sleep, waitFor } from '../../scripts/services/wait.ts';

/** The repository root, whether this file runs from source (jest) or compiled into dist/ (benchmarks). */
function repositoryRoot(): string {
  let dir = __dirname;
  while (!existsSync(resolve(dir, 'package.json'))) dir = dirname(dir);
  return dir;
}

export const ROOT = repositoryRoot();

export const ENTRY = {
  api: resolve(ROOT, 'dist/apps/api/src/main.js'),
  worker: resolve(ROOT, 'dist/apps/worker/src/main.js'),
  cli: resolve(ROOT, 'dist/apps/worker/src/cli.js'),
};

export interface RunningProcess {
  child: ChildProcess;
  output(): string;
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<number | null>;
}

/**
 * Starts a built entry point with the test environment plus overrides; collects its output. `via`
 * runs it under another command (`/usr/bin/time -v -o file`), which is then the child.
 */
export function startProcess(
  entry: string,
  env: Record<string, string> = {},
  args: string[] = [],
  via: string[] = [],
): RunningProcess {
  const [command, ...prefix] = [...via, process.execPath];
  const child = spawn(command, [...prefix, entry, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return {
    child,
    output: () => output,
    /** Sends the signal; a process still running after `graceMs` is killed, so no test can hang on it. */
    async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 15_000) {
      if (child.exitCode !== null || child.signalCode !== null) return exited;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** The JSON log lines a process has written that contain `fragment`, parsed, in order. */
export function jsonLogLines<T>(running: Pick<RunningProcess, 'output'>, fragment: string): T[] {
  return running
    .output()
    .split('\n')
    .filter((line) => line.includes(fragment))
    .map((line) => JSON.parse(line) as T);
}

/**
 * Runs an entry point to completion (under `via`, as `startProcess`). With `timeoutMs`, a run still
 * going then is killed (code `null`) and its output says so, so a command that hangs fails its
 * caller's check rather than outlasting the test.
 */
export async function runProcess(
  entry: string,
  args: string[],
  env: Record<string, string> = {},
  via: string[] = [],
  { timeoutMs }: { timeoutMs?: number } = {},
): Promise<{ code: number | null; output: string }> {
  const running = startProcess(entry, env, args, via);
  const exited = new Promise<number | null>((done) => running.child.once('exit', (c) => done(c)));
  if (timeoutMs === undefined) return { code: await exited, output: running.output() };
  return withTimeout(exited, timeoutMs, 'the command').then(
    (code) => ({ code, output: running.output() }),
    async () => ({
      code: await running.stop('SIGKILL', 0),
      output: `${running.output()}\n[killed: still running after ${timeoutMs} ms]`,
    }),
  );
}

const PORT_VARIABLE = { api: 'PORT', worker: 'WORKER_PORT' } as const;

export interface StartedService {
  url: string;
  /** Where its `GET /metrics` answers: the API's own metrics port, the worker's one port. */
  metrics: string;
  process: RunningProcess;
}

/**
 * Starts the API or the worker on a free port (the API's metrics on another) and waits until its
 * readiness probe answers 200. A process that never gets ready is killed, and the error carries
 * the end of its output.
 */
export async function startService(
  kind: 'api' | 'worker',
  env: Record<string, string> = {},
  /** Another build's entry point (a benchmark's baseline); this checkout's by default. */
  entry: string = ENTRY[kind],
): Promise<StartedService> {
  const port = await freePort();
  const metricsPort = kind === 'api' ? await freePort() : port;
  const running = startProcess(entry, {
    ...env,
    [PORT_VARIABLE[kind]]: String(port),
    ...(kind === 'api' ? { METRICS_PORT: String(metricsPort) } : {}),
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForStatus(`${url}/health/ready`, 200, 60_000);
  } catch (error) {
    await running.stop('SIGKILL');
    throw new Error(`${kind} never got ready: ${String(error)}\n${running.output().slice(-4_000)}`, {
      cause: error,
    });
  }
  return { url, metrics: `http://127.0.0.1:${metricsPort}`, process: running };
}

/** Waits until `GET url` answers with the given status. */
export function waitForStatus(url: string, status: number, timeoutMs = 30_000): Promise<true> {
  return waitFor(
    `${url} to answer ${status}`,
    async () =>
      (await fetch(url, { signal: AbortSignal.timeout(5_000) })).status === status ? true : undefined,
    { timeoutMs },
  );
}

/** A process's resident set size in kB; NaN once it is gone (which the checks then report). */
export function rssKb(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : NaN;
  } catch {
    return NaN;
  }
}
