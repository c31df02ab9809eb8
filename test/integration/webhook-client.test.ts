import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '@app/shared/config/load-config';
import { WebhookClient } from '@app/shared/events/webhook.client';
import { freePort } from '../support/processes';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** A client as the worker builds it, with these destinations allowed (`WEBHOOK_ALLOWED_HOSTS`). */
function clientAllowing(allowedHosts: string, timeoutMs = 500): WebhookClient {
  return new WebhookClient(
    loadConfig({ WEBHOOK_TIMEOUT_MS: String(timeoutMs), WEBHOOK_ALLOWED_HOSTS: allowedHosts }),
  );
}

/** The client against real sockets: what an untrusted receiver can do to it. */
describe('WebhookClient', () => {
  // The test receiver listens on loopback, which only an explicit allowance lets the client reach.
  const client = clientAllowing('127.0.0.1');
  const strict = clientAllowing('');
  let server: Server;
  let port: number;
  let url: string;
  let handler: Handler;
  let connections: number;
  let requests: { path: string | undefined; body: string; headers: IncomingMessage['headers'] }[];

  beforeAll(async () => {
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        requests.push({
          path: request.url,
          body: Buffer.concat(chunks).toString(),
          headers: request.headers,
        });
        handler(request, response);
      });
    });
    server.on('connection', () => (connections += 1));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    port = (server.address() as AddressInfo).port;
    url = `http://127.0.0.1:${port}/hooks`;
  });

  beforeEach(() => {
    requests = [];
    connections = 0;
    handler = (_request, response) => response.writeHead(204).end();
  });

  afterAll(async () => {
    client.onApplicationShutdown();
    strict.onApplicationShutdown();
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  });

  it('posts the body and headers once, and takes any 2xx as delivered', async () => {
    handler = (_request, response) => response.writeHead(202).end('accepted');
    expect(await client.post(url, { 'webhook-id': 'e1' }, '{"a":1}')).toEqual({ ok: true, status: 202 });
    expect(requests).toEqual([
      expect.objectContaining({
        path: '/hooks',
        body: '{"a":1}',
        headers: expect.objectContaining({
          'webhook-id': 'e1',
          'content-type': 'application/json',
        }) as unknown,
      }),
    ]);
  });

  it('does not follow a redirect', async () => {
    handler = (_request, response) => response.writeHead(307, { location: '/elsewhere' }).end();
    expect(await client.post(url, {}, '{}')).toEqual({
      ok: false,
      error: 'HTTP 307 (redirects are not followed)',
    });
    expect(requests.map((r) => r.path)).toEqual(['/hooks']);
  });

  it('reads no more than 1 KiB of an answer, however long', async () => {
    handler = (_request, response) => {
      response.writeHead(500);
      const write = () => {
        // An endless answer: only the client hanging up stops it.
        while (response.write('x'.repeat(16_384)));
        if (!response.destroyed) response.once('drain', write);
      };
      write();
    };
    // The answer never ends, so only the read limit (not the end, not the deadline) can give this result.
    const patient = clientAllowing('127.0.0.1', 30_000);
    try {
      expect(await patient.post(url, {}, '{}')).toEqual({ ok: false, error: `HTTP 500: ${'x'.repeat(200)}` });
    } finally {
      patient.onApplicationShutdown();
    }
  });

  it('gives up on an answer that does not come within the deadline', async () => {
    handler = (_request, response) => setTimeout(() => response.writeHead(204).end(), 1_500);
    const started = Date.now();
    expect(await client.post(url, {}, '{}')).toEqual({ ok: false, error: 'no answer within 500 ms' });
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('counts a 2xx whose body never ends as delivered', async () => {
    handler = (_request, response) => {
      response.writeHead(200);
      response.write('partial');
    };
    expect(await client.post(url, {}, '{}')).toEqual({ ok: true, status: 200 });
  });

  it('reports a refused connection', async () => {
    const closed = `http://127.0.0.1:${await freePort()}/hooks`;
    const result = await client.post(closed, {}, '{}');
    expect(result).toMatchObject({ ok: false, error: expect.stringContaining('ECONNREFUSED') as unknown });
  });

  it('refuses a name that resolves to loopback before any connection, and delivers once it is allowed', async () => {
    const byName = `http://localhost:${port}/hooks`;
    expect(await strict.post(byName, {}, '{}')).toEqual({
      ok: false,
      error: 'destination 127.0.0.1 (localhost) is a loopback address; allow it with WEBHOOK_ALLOWED_HOSTS',
    });
    expect(connections).toBe(0);
    for (const allowed of ['localhost', '127.0.0.0/8']) {
      const allowing = clientAllowing(allowed);
      try {
        expect(await allowing.post(byName, {}, '{}')).toEqual({ ok: true, status: 204 });
      } finally {
        allowing.onApplicationShutdown();
      }
    }
    expect(requests).toHaveLength(2);
  });

  it.each([
    ['127.0.0.1', 'destination 127.0.0.1 is a loopback address'],
    ['[::ffff:127.0.0.1]', 'destination ::ffff:7f00:1 is a loopback address'],
    ['[::1]', 'destination ::1 is a loopback address'],
    // The WHATWG parser reads these as 127.0.0.1 and 0.0.0.0, which Linux connects to loopback.
    ['2130706433', 'destination 127.0.0.1 is a loopback address'],
    ['0', 'destination 0.0.0.0 is an unspecified address'],
    ['10.0.0.1', 'destination 10.0.0.1 is a private address'],
    ['169.254.169.254', 'destination 169.254.169.254 is a cloud metadata address'],
    ['[fd00:ec2::254]', 'destination fd00:ec2::254 is a cloud metadata address'],
  ])('refuses the literal address %s without connecting', async (host, refusal) => {
    const started = Date.now();
    expect(await strict.post(`http://${host}:${port}/hooks`, {}, '{}')).toEqual({
      ok: false,
      error: `${refusal}; allow it with WEBHOOK_ALLOWED_HOSTS`,
    });
    expect(connections).toBe(0);
    // Refused at once, not after a connection attempt to an unreachable address timed out.
    expect(Date.now() - started).toBeLessThan(100);
  });
});
