import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { z } from 'zod';

/** A Standard Webhooks secret for tests: `whsec_` and the base64 of 32 bytes. */
export const TEST_WEBHOOK_SECRET = `whsec_${Buffer.alloc(32, 42).toString('base64')}`;

/**
 * How the receiver answers: 204, an error, a redirect, after a delay, not at all (not listening), or
 * never (`hang`: it takes the request and keeps the connection open without an answer).
 */
export type ReceiverMode =
  | { kind: 'up' }
  | { kind: 'down' }
  | { kind: 'hang' }
  | { kind: 'status'; status: number }
  | { kind: 'redirect' }
  | { kind: 'slow'; delayMs: number | (() => number) };

export interface ReceivedEvent {
  id: string;
  type: string;
  videoId: string | undefined;
  body: Record<string, unknown>;
  /** The request's path and query, and its Authorization header (from a URL's user:password@). */
  path: string;
  authorization: string | undefined;
  /** Verified by the Standard Webhooks library with the test secret. */
  valid: boolean;
  at: number;
}

export interface WebhookReceiver {
  url: string;
  /** Every request that reached the receiver, in arrival order (repeats included). */
  received: ReceivedEvent[];
  /** Requests to the address a redirect points to: a client that follows redirects would land here. */
  redirectsFollowed: number;
  /** The most requests it held open at once, from arrival to the answer's end. */
  peakInFlight: number;
  setMode(mode: ReceiverMode): Promise<void>;
  /** Distinct event ids received with a valid signature. */
  validIds(): Set<string>;
  close(): Promise<void>;
}

/**
 * A real HTTP receiver that checks each signature with the Standard Webhooks library. "Down" closes
 * the listening socket (and open connections), so senders meet a refused connection; "up" listens
 * again on the same port.
 */
export async function startWebhookReceiver(secret = TEST_WEBHOOK_SECRET): Promise<WebhookReceiver> {
  const verifier = new Webhook(secret);
  let mode: ReceiverMode = { kind: 'up' };
  let port = 0;
  let inFlight = 0;
  const receiver: WebhookReceiver = {
    url: '',
    received: [],
    redirectsFollowed: 0,
    peakInFlight: 0,
    async setMode(next) {
      const wasDown = mode.kind === 'down';
      mode = next;
      if (next.kind === 'down' && !wasDown) await stop(server);
      if (next.kind !== 'down' && wasDown) await listen(server, port);
    },
    validIds() {
      return new Set(receiver.received.filter((event) => event.valid).map((event) => event.id));
    },
    async close() {
      if (mode.kind !== 'down') await stop(server);
    },
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    if (request.url === '/moved') {
      receiver.redirectsFollowed += 1;
      response.writeHead(204).end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const headers = Object.fromEntries(
      ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [
        name,
        String(request.headers[name]),
      ]),
    );
    let valid = true;
    try {
      verifier.verify(raw, headers);
    } catch {
      valid = false;
    }
    const body = JSON.parse(raw) as { type: string; data: { videoId?: string } };
    receiver.received.push({
      id: headers['webhook-id']!,
      type: body.type,
      videoId: body.data.videoId,
      body,
      path: request.url ?? '',
      authorization: request.headers.authorization,
      valid,
      at: Date.now(),
    });
    if (mode.kind === 'hang') return;
    if (mode.kind === 'slow') {
      const delay = typeof mode.delayMs === 'function' ? mode.delayMs() : mode.delayMs;
      await new Promise((done) => setTimeout(done, delay));
    }
    if (mode.kind === 'redirect')
      response.writeHead(302, { location: `${receiver.url.replace(/\/hooks$/, '')}/moved` });
    else if (mode.kind === 'status') response.writeHead(mode.status);
    else response.writeHead(valid ? 204 : 401);
    response.end();
  };

  const server = createServer((request, response) => {
    inFlight += 1;
    receiver.peakInFlight = Math.max(receiver.peakInFlight, inFlight);
    response.once('close', () => (inFlight -= 1));
    handle(request, response).catch(() => response.destroy());
  });
  await listen(server, 0);
  port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${port}/hooks`;
  return receiver;
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((done, fail) => {
    server.once('error', fail);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', fail);
      done();
    });
  });
}

function stop(server: Server): Promise<void> {
  return new Promise((done) => {
    server.close(() => done());
    server.closeAllConnections();
  });
}

/**
 * The environment of a system that delivers to `urls` quickly: short deadlines, retries and sweeps.
 * The receivers listen on loopback, which a deployment reaches only when it says so.
 */
export function webhookEnv(urls: string[]): Record<string, string> {
  return {
    WEBHOOK_URLS: urls.join(','),
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
    WEBHOOK_TIMEOUT_MS: '1000',
    WEBHOOK_RETRY_BASE_MS: '200',
    WEBHOOK_RETRY_MAX_MS: '1000',
    WEBHOOK_SWEEP_INTERVAL_MS: '250',
    PURGE_SWEEP_INTERVAL_MS: '1000',
  };
}

/**
 * Where the receiver saw a video's events out of their recorded order: the first arrival of each
 * event must follow the first arrival of the event before it about the same video.
 */
export function deliveryOrderViolations(
  receiver: Pick<WebhookReceiver, 'received'>,
  events: { id: string; subject: string }[],
): string[] {
  const firstArrival = new Map<string, number>();
  receiver.received.forEach((event, index) => {
    if (!firstArrival.has(event.id)) firstArrival.set(event.id, index);
  });
  const previous = new Map<string, string>();
  const violations: string[] = [];
  for (const event of events) {
    const before = previous.get(event.subject);
    const at = firstArrival.get(event.id);
    if (before !== undefined && at !== undefined && (firstArrival.get(before) ?? Infinity) > at) {
      violations.push(
        `event ${event.id} of video ${event.subject} arrived before the one recorded before it`,
      );
    }
    previous.set(event.subject, event.id);
  }
  return violations;
}

/** The part of an OpenAPI document a receiver reads for webhooks: each one's body, a named schema. */
export interface PublishedWebhooks {
  webhooks: Record<
    string,
    { post: { requestBody: { content: Record<string, { schema: { $ref: string } }> } } }
  >;
  components: { schemas: Record<string, unknown> };
}

/**
 * Each webhook's body schema as the document publishes it (the JSON Schema its `$ref` names), built
 * into a validator as a receiver would, by event type. A `$ref` to no schema throws.
 */
export function publishedBodySchemas(document: PublishedWebhooks): Map<string, z.ZodType> {
  return new Map(
    Object.entries(document.webhooks).map(([type, { post }]) => {
      const { $ref } = post.requestBody.content['application/json']!.schema;
      const schema = document.components.schemas[$ref.replace('#/components/schemas/', '')];
      if (!schema) throw new Error(`webhook ${type}: its body ${$ref} is not among the document's schemas`);
      return [type, z.fromJSONSchema(schema as z.core.JSONSchema.JSONSchema)];
    }),
  );
}

/** The body schemas the API at `apiUrl` publishes, read once from its `/docs-json`. */
export async function fetchPublishedBodySchemas(apiUrl: string): Promise<Map<string, z.ZodType>> {
  const response = await fetch(new URL('/docs-json', apiUrl));
  return publishedBodySchemas((await response.json()) as PublishedWebhooks);
}

/**
 * Where received bodies break the schemas the API publishes (`fetchPublishedBodySchemas`): one line
 * per event that does not parse, none when all do.
 */
export function publishedSchemaViolations(
  schemas: Map<string, z.ZodType>,
  received: ReceivedEvent[],
): string[] {
  return received.flatMap((event) => {
    const schema = schemas.get(event.type);
    if (!schema) return [`${event.id}: no webhook is published for type ${event.type}`];
    const parsed = schema.safeParse(event.body);
    return parsed.success ? [] : [`${event.id} (${event.type}): ${z.prettifyError(parsed.error)}`];
  });
}
