/**
 * A collector that keeps up and keeps nothing: answers every OTLP/HTTP export (`POST /v1/traces`,
 * protobuf or JSON) with 200 once its body is read, and drops it. The tracing step's API exports
 * its spans here, so that what is measured is what tracing costs the API, not a collector's
 * pace. A process of its own (`node dist/bench/otlp-sink.js <port>`), plain node:http, until
 * SIGTERM; then prints one JSON line: the exports received and their bytes.
 */
import { createServer } from 'node:http';

const [port] = process.argv.slice(2);
let requests = 0;
let bytes = 0;

const server = createServer((request, answer) => {
  request.on('data', (chunk: Buffer) => (bytes += chunk.length));
  request.on('end', () => {
    if (request.method === 'POST') requests += 1;
    // An empty ExportTraceServiceResponse: everything accepted.
    answer.writeHead(200, { 'content-type': request.headers['content-type'] ?? 'application/x-protobuf' });
    answer.end();
  });
});
server.listen(Number(port), '127.0.0.1', () => console.log('listening'));
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.stdout.write(`${JSON.stringify({ requests, bytes })}\n`, () => process.exit(0)));
});
