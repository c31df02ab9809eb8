import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { sleep } from './wait.ts';
import { fail, log } from './report.ts';

/**
 * A server process started here. It always runs in a process group of its own (a launcher and the
 * server it starts, as Elasticsearch has, are stopped together), out of the caller's terminal
 * session so Ctrl-C there does not reach it, with its output appended to a log file.
 */
export interface ServerProcess {
  pid: number;
  /** Whether the process (the group's leader) has exited. */
  exited(): boolean;
  exitCode(): number | null;
  /** Resolves when it has exited. */
  whenExited: Promise<void>;
  /** Signals the group, then SIGKILL after `graceMs` if it is still there; resolves when it is gone. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<void>;
}

export interface LaunchOptions {
  command: string;
  args: string[];
  logFile: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Left running when this process ends (`up`), rather than a child a test keeps and stops. */
  daemon?: boolean;
  /** A command prefix that runs the server as another user (`setpriv …`). */
  runAs?: string[];
  /** Written as soon as it runs (so a `down` finds it even if this run ends before it is ready), removed when it is stopped. */
  pidFile?: string;
}

export function launch(options: LaunchOptions): ServerProcess {
  mkdirSync(dirname(options.logFile), { recursive: true });
  const output = openSync(options.logFile, 'a');
  const [command, ...args] = [...(options.runAs ?? []), options.command, ...options.args];
  let child: ChildProcess;
  try {
    child = spawn(command!, args, {
      env: options.env ?? process.env,
      cwd: options.cwd,
      detached: true,
      stdio: ['ignore', output, output],
    });
  } finally {
    closeSync(output);
  }
  // Listening first: a command that cannot run reports it as an 'error' event, after this returns.
  const whenExited = new Promise<void>((done) => {
    child.once('exit', () => done());
    child.once('error', () => done());
  });
  if (child.pid === undefined) fail(`could not run ${command} (is it installed?)`);
  const pid = child.pid;
  if (options.daemon) child.unref();
  if (options.pidFile) writePidFile(options.pidFile, pid);
  const exited = () => child.exitCode !== null || child.signalCode !== null || child.pid === undefined;
  return {
    pid,
    exited,
    exitCode: () => child.exitCode,
    whenExited,
    // Once it has exited its pid may be another process's: only its group (if any is left) is signalled.
    async stop(signal = 'SIGTERM', graceMs = 30_000) {
      await stopGroup(pid, signal, graceMs, !exited());
      if (options.pidFile) rmSync(options.pidFile, { force: true });
    },
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Signals the process group led by `pid` (or the process alone, when it leads none: one started by
 * an older version of this tool), then SIGKILL after `graceMs`; resolves once nothing of it is left.
 */
export async function stopGroup(
  pid: number,
  signal: NodeJS.Signals,
  graceMs: number,
  orProcess = true,
): Promise<void> {
  let target = -pid;
  const send = (sig: NodeJS.Signals) => {
    try {
      process.kill(target, sig);
    } catch {
      if (target < 0 && orProcess) {
        target = pid;
        send(sig);
      }
    }
  };
  send(signal);
  const deadline = Date.now() + graceMs;
  while (alive(target) && Date.now() < deadline) await sleep(200);
  if (alive(target)) {
    if (graceMs > 0) log(`pid ${pid} ignored ${signal} for ${Math.round(graceMs / 1000)}s, sending SIGKILL`);
    send('SIGKILL');
    const killDeadline = Date.now() + 10_000;
    while (alive(target) && Date.now() < killDeadline) await sleep(100);
  }
}

/** The pid in a pid file, when that process runs and its command line matches `pattern`. */
export function livePid(file: string, pattern: RegExp): number | undefined {
  let pid: number;
  try {
    pid = Number(readFileSync(file, 'utf8').replace(/\D/g, ''));
  } catch {
    return undefined;
  }
  if (!pid) return undefined;
  // Guards against a pid recycled after a reboot or a crash.
  try {
    return pattern.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ')) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Writes a pid file, or the URL file beside it that says which address the process serves. */
export function writePidFile(file: string, content: number | string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${content}\n`);
}

/**
 * One services directory holds one of each server: while the one it runs was started for another
 * address (its URL file says which), a request for this one must not pass for "still booting".
 */
export function checkSameUrl(file: string, url: string, name: string): void {
  const recorded = existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
  if (recorded && recorded !== url) {
    fail(
      `${name} from this SERVICES_DIR is already running for ${recorded}, not ${url}; run 'down' first or use another SERVICES_DIR`,
    );
  }
}

/** Stops what a pid file records; the line says what happened. */
export async function stopPidFile(
  name: string,
  file: string,
  pattern: RegExp,
  graceS: number,
): Promise<string> {
  const pid = livePid(file, pattern);
  if (pid === undefined) {
    if (!existsSync(file)) return `${name}: not started by services:up (nothing to stop)`;
    rmSync(file, { force: true });
    return `${name}: not running (removed stale pid file)`;
  }
  await stopGroup(pid, 'SIGTERM', graceS * 1000);
  rmSync(file, { force: true });
  return `${name}: stopped (pid ${pid})`;
}

/** The last lines of a log, framed, for a failure message. */
export function logTail(file: string, lines = 40): string {
  if (!existsSync(file)) return '';
  const text = readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  return `----- last ${lines} lines of ${file} -----\n${text}\n-----`;
}

/**
 * Waits until `ready()` holds. A server that exits meanwhile fails at once rather than at the
 * deadline; one that never gets ready is stopped. The error ends with the logs' last lines.
 */
export async function waitReady(
  server: ServerProcess | undefined,
  what: string,
  ready: () => Promise<boolean>,
  { timeoutMs, logs = [] }: { timeoutMs: number; logs?: string[] },
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let why = `no answer within ${Math.round(timeoutMs / 1000)}s`;
  for (;;) {
    if (await ready()) return;
    if (server?.exited()) {
      why = `it exited with ${server.exitCode() ?? 'a signal'}`;
      break;
    }
    if (Date.now() >= deadline) break;
    await sleep(500);
  }
  if (server && !server.exited()) await server.stop('SIGKILL', 0);
  const tails = logs.map((file) => logTail(file)).filter(Boolean);
  fail([`${what} (${why})`, ...tails].join('\n'));
}
