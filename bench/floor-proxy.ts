/**
 * The floor of any API in front of the engine: an HTTP server that takes `GET /?q=…`, sends the
 * plain `multi_match` (`plainBody`) to Elasticsearch and answers its JSON as
 * it came, doing nothing else: no auth, no validation, no check of MySQL, no rendering. The search
 * bench measures it beside the API, so the API's own cost shows against the least an extra HTTP hop
 * costs on this machine. A process of its own (`node dist/bench/floor-proxy.js <port> <es-url>
 * <index>`), plain node:http both ways, until SIGTERM.
 */
import { createServer } from 'node:http';
import { plainSender } from './lib/plain-query';

const [port, elasticsearch, index] = process.argv.slice(2) as [string, string, string];
const send = plainSender(elasticsearch, index);

const server = createServer((incoming, answer) => {
  const q = new URL(incoming.url ?? '/', 'http://floor').searchParams.get('q') ?? '';
  send(q, (engine) => {
    answer.writeHead(engine.statusCode ?? 502, { 'content-type': 'application/json' });
    engine.pipe(answer);
  }).on('error', () => answer.writeHead(502).end());
});
server.listen(Number(port), '127.0.0.1', () => console.log('listening'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
