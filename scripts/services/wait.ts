import { connect, createServer, type AddressInfo } from 'node:net';

export function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}

/**
 * Polls `probe` until it returns something other than `undefined`, and returns that. A probe that
 * throws counts as not yet; past the deadline the error names `what` and the probe's last error.
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
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    await sleep(intervalMs);
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

/** A port nothing listens on, chosen by the kernel, so a server of a test's own collides with nothing. */
export function freePort(): Promise<number> {
  return new Promise((done, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => done(port));
    });
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
