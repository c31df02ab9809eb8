import { connect, createServer } from 'node:net';
import { withTimeout } from '../../libs/shared/src/util/with-timeout.ts';

export function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}

/**
 * Polls `probe` until it returns something other than `undefined`, and returns that. A probe that
 * throws counts as not yet; past the deadline the error names `what` and the probe's last error.
 * A probe that never settles is abandoned at the deadline, so no wait outlasts its `timeoutMs`.
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  { timeoutMs = 30_000, intervalMs = 200 } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await withTimeout(probe(), deadline - Date.now(), 'the probe');
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    await sleep(Math.min(intervalMs, Math.max(0, deadline - Date.now())));
  }
  throw new Error(
    `Timed out waiting for ${what}${lastError instanceof Error ? `: ${lastError.message}` : ''}`,
  );
}

/** Something accepts TCP connections at host:port. */
export function tcpOpen(host: string, port: number, timeoutMs = 2_000): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect({ host, port });
    const finish = (open: boolean) => {
      socket.destroy();
      done(open);
    };
    socket.setTimeout(timeoutMs, () => finish(false));
    socket.once('connect', () => finish(true));
    socket.once('error', () => finish(false));
  });
}

/** A port nothing listens on, chosen at random below the ephemeral range, so a server of a test's own collides with nothing. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const port = FREE_PORTS.from + Math.floor(Math.random() * (FREE_PORTS.to - FREE_PORTS.from));
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port between ${FREE_PORTS.from} and ${FREE_PORTS.to}`);
}

/**
 * Below Linux's ephemeral range (32768–60999), from which the kernel picks the local port of every
 * outgoing connection: a port found free there (as `listen(0)` finds one) could be taken by some
 * connection before the server meant for it binds it, and that server then fails with EADDRINUSE.
 */
const FREE_PORTS = { from: 20_000, to: 32_000 };

/** Whether a server could listen on `port` on every interface (as the API and the worker do). */
function canListen(port: number): Promise<boolean> {
  return new Promise((done) => {
    const server = createServer();
    server.once('error', () => done(false));
    server.listen(port, () => server.close(() => done(true)));
  });
}

/** The status and body of a GET, or `undefined` when nothing answers in time. */
export async function httpGet(
  url: string,
  timeoutMs = 3_000,
): Promise<{ status: number; body: string; headers: Headers } | undefined> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    return { status: response.status, body: await response.text(), headers: response.headers };
  } catch {
    return undefined;
  }
}
