import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebhookClient } from '@app/shared/events/webhook.client';
import { freePort } from '../support/processes';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** The client against real sockets: what an untrusted receiver can do to it. */
describe('WebhookClient', () => {
  const client = new WebhookClient({ WEBHOOK_TIMEOUT_MS: 500 });
  let server: Server;
  let url: string;
  let handler: Handler;
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
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  });

  beforeEach(() => {
    requests = [];
  });

  afterAll(async () => {
    client.onApplicationShutdown();
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
    const patient = new WebhookClient({ WEBHOOK_TIMEOUT_MS: 30_000 });
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
});
