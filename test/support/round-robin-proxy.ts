import { Agent, createServer, request as forward, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One answer the proxy passed on (or made: 502 when no backend took the request). */
export interface ProxiedAnswer {
  method: string;
  path: string;
  /** The backend that answered, or '' when none did. */
  backend: string;
  status: number;
  at: number;
  /** Backends that refused the request's connection before one took it. */
  refused: number;
}

export interface RoundRobinProxy {
  url: string;
  /** The backends in rotation, as a Service's endpoints: changed while requests run. */
  setBackends(urls: string[]): void;
  backends(): string[];
  answers: ProxiedAnswer[];
  close(): Promise<void>;
}

/** Errors that mean the backend never read the request: any request may go to the next one. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE']);
/** Methods that may be sent again once a backend may have read them (as nginx's `proxy_next_upstream`). */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'DELETE', 'PUT', 'OPTIONS']);

/**
 * A round-robin HTTP load balancer on loopback, as an ingress or a Service's proxy behaves: it
 * keeps connections to its backends alive, and sends a request whose connection a backend refused
 * or dropped before answering to the next backend (for a method that may be repeated), as nginx
 * does. It never retries an answer: a backend's 503 reaches the client as it is.
 */
export async function startRoundRobinProxy(initial: string[]): Promise<RoundRobinProxy> {
  let backends = [...initial];
  let next = 0;
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const answers: ProxiedAnswer[] = [];

  const attempt = (incoming: IncomingMessage, body: Buffer, backend: string) =>
    new Promise<IncomingMessage>((resolve, reject) => {
      const target = new URL(incoming.url ?? '/', backend);
      const outgoing = forward(
        target,
        { method: incoming.method, headers: { ...incoming.headers, host: target.host }, agent },
        resolve,
      );
      outgoing.once('error', reject);
      outgoing.end(body);
    });

  const server: Server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        const method = incoming.method ?? 'GET';
        const tried = new Set<string>();
        let refused = 0;
        for (;;) {
          const candidates = backends.filter((backend) => !tried.has(backend));
          if (candidates.length === 0) break;
          const backend = candidates[next++ % candidates.length]!;
          tried.add(backend);
          try {
            const answer = await attempt(incoming, body, backend);
            answers.push({
              method,
              path: incoming.url ?? '',
              backend,
              status: answer.statusCode ?? 0,
              at: Date.now(),
              refused,
            });
            outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(outgoing);
            return;
          } catch (error) {
            const code = (error as NodeJS.ErrnoException).code ?? '';
            if (!(code === 'ECONNREFUSED' || (NOT_SENT.has(code) && IDEMPOTENT.has(method)))) break;
            refused += 1;
          }
        }
        answers.push({ method, path: incoming.url ?? '', backend: '', status: 502, at: Date.now(), refused });
        outgoing.writeHead(502, { 'content-type': 'text/plain' }).end('no backend answered');
      })();
    });
  });
  // Idle client connections stay open longer than a client keeps them (as an ingress does: nginx's
  // keepalive_timeout is 75 s), so a client never sends on one the proxy has just closed.
  server.keepAliveTimeout = 75_000;
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    setBackends(urls) {
      backends = [...urls];
    },
    backends: () => [...backends],
    answers,
    async close() {
      agent.destroy();
      server.closeAllConnections();
      await new Promise<void>((closed) => server.close(() => closed()));
    },
  };
}
