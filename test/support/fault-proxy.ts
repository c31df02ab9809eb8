import { createServer, request as forward, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FaultOptions {
  /** Share of requests answered with a 503 SlowDown instead of being forwarded. */
  failRate?: number;
  /** Share of requests whose connection is cut without an answer. */
  resetRate?: number;
  /** Added before every forwarded request. */
  latencyMs?: number;
  /** Share of requests held back for `stallMs` first. */
  stallRate?: number;
  stallMs?: number;
  random?: () => number;
}

export interface FaultProxy {
  url: string;
  stats: { requests: number; failed: number; reset: number; stalled: number };
  setFaults(options: FaultOptions): void;
  /** Stops listening and drops every open connection: the storage is gone (connections refused). */
  refuse(): Promise<void>;
  /** Listens again on the same port. */
  accept(): Promise<void>;
  close(): Promise<void>;
}

/**
 * An HTTP proxy on loopback that injects faults in front of a real server (here S3Proxy). Headers
 * are passed through untouched, so signed S3 requests still verify at the far end.
 */
export async function startFaultProxy(target: string, initial: FaultOptions = {}): Promise<FaultProxy> {
  const destination = new URL(target);
  let options = initial;
  const stats = { requests: 0, failed: 0, reset: 0, stalled: 0 };
  const server: Server = createServer((incoming, outgoing) => {
    stats.requests += 1;
    const random = options.random ?? Math.random;
    if (random() < (options.resetRate ?? 0)) {
      stats.reset += 1;
      incoming.socket.destroy();
      return;
    }
    if (random() < (options.failRate ?? 0)) {
      stats.failed += 1;
      incoming.resume();
      outgoing.writeHead(503, { 'content-type': 'application/xml' });
      outgoing.end(
        '<?xml version="1.0"?><Error><Code>SlowDown</Code><Message>Injected fault</Message></Error>',
      );
      return;
    }
    const stall = random() < (options.stallRate ?? 0);
    if (stall) stats.stalled += 1;
    const delay = (options.latencyMs ?? 0) + (stall ? (options.stallMs ?? 0) : 0);
    setTimeout(() => {
      const upstream = forward(
        {
          host: destination.hostname,
          port: destination.port,
          method: incoming.method,
          path: incoming.url,
          headers: incoming.headers,
        },
        (response) => {
          outgoing.writeHead(response.statusCode ?? 502, response.headers);
          response.pipe(outgoing);
        },
      );
      upstream.on('error', () => outgoing.destroy());
      incoming.pipe(upstream);
    }, delay);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  const close = () =>
    new Promise<void>((done) => {
      if (!server.listening) return done();
      server.close(() => done());
      server.closeAllConnections();
    });
  return {
    url: `http://127.0.0.1:${port}`,
    stats,
    setFaults(next) {
      options = next;
    },
    refuse: close,
    accept: () =>
      new Promise<void>((done) => {
        if (server.listening) return done();
        server.listen(port, '127.0.0.1', done);
      }),
    close,
  };
}
