import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as a collector receives it, with the service that sent it. Ids in hex. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  /** Absent on a trace's root. */
  parentSpanId?: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  /** The span contexts it links to (a job's span, to the span that queued it). */
  links: { traceId: string; spanId: string }[];
}

export const SPAN_KIND = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;

export interface OtlpReceiver {
  /** The base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it (the exporter adds `/v1/traces`). */
  url: string;
  /** Every span received so far. */
  spans(): ReceivedSpan[];
  /** Export requests answered. */
  received(): number;
  close(): Promise<void>;
}

/** OTLP/JSON's AnyValue, for the scalar values spans carry. */
interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface KeyValue {
  key: string;
  value?: AnyValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: KeyValue[];
  links?: { traceId: string; spanId: string }[];
}
interface ExportTraceServiceRequest {
  resourceSpans?: { resource?: { attributes?: KeyValue[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[];
}

const scalar = (value: AnyValue | undefined): string | number | boolean =>
  value?.stringValue ?? value?.boolValue ?? value?.doubleValue ?? Number(value?.intValue ?? NaN);

const attributes = (list: KeyValue[] = []) =>
  Object.fromEntries(list.map(({ key, value }) => [key, scalar(value)]));

/** OTLP/JSON writes ids in hex; the protobuf mapping's default, base64, is read too. */
const hex = (id: string | undefined) =>
  !id ? undefined : /^[0-9a-f]+$/i.test(id) ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex');

/** The spans of one OTLP/JSON export request (ExportTraceServiceRequest). */
export function decodeOtlpJson(body: string): ReceivedSpan[] {
  const request = JSON.parse(body) as ExportTraceServiceRequest;
  return (request.resourceSpans ?? []).flatMap((resourceSpans) => {
    const service = String(attributes(resourceSpans.resource?.attributes)['service.name'] ?? '');
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => {
        const parentSpanId = hex(span.parentSpanId);
        return {
          service,
          traceId: hex(span.traceId)!,
          spanId: hex(span.spanId)!,
          ...(parentSpanId ? { parentSpanId } : {}),
          name: span.name,
          kind: span.kind,
          attributes: attributes(span.attributes),
          links: (span.links ?? []).map((link) => ({
            traceId: hex(link.traceId)!,
            spanId: hex(link.spanId)!,
          })),
        };
      }),
    );
  });
}

/**
 * A collector's OTLP/HTTP trace endpoint on a free loopback port, for the processes under test
 * (`OTEL_EXPORTER_OTLP_ENDPOINT`). It reads what they send with `OTEL_EXPORTER_OTLP_PROTOCOL=http/json`
 * (the JSON mapping OpenTelemetry specifies, so `JSON.parse` decodes it) and keeps the spans,
 * answering as a collector does: 200 with an empty ExportTraceServiceResponse. Protobuf it refuses
 * (415): a test that meant JSON would otherwise wait for spans that never come.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  let requests = 0;
  const answer = (response: ServerResponse, status: number) => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end('{}');
  };
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/traces') return answer(response, 404);
      if (!(request.headers['content-type'] ?? '').startsWith('application/json'))
        return answer(response, 415);
      requests++;
      spans.push(...decodeOtlpJson(Buffer.concat(chunks).toString('utf8')));
      answer(response, 200);
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans: () => [...spans],
    received: () => requests,
    close: () =>
      new Promise<void>((closed) => {
        server.closeAllConnections();
        server.close(() => closed());
      }),
  };
}
