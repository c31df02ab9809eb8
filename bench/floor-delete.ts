/**
 * The floor of any HTTP service that soft-deletes a video: a bare node:http server that takes
 * `DELETE /<id>` and runs the raw script's soft delete (bench/lib/raw-soft-delete.ts: the same
 * transaction, outbox event, BullMQ job and bulk index as the product's), answering 200 with the
 * video's id and state, and doing nothing else: no auth, no validation, no framework, no logs. The
 * delete bench measures it beside the API and the raw script, so the API's own cost shows against
 * what an HTTP hop costs on this machine. A process of its own (`node dist/bench/floor-delete.js
 * <port>`, configured by the bench's environment), until SIGTERM.
 */
import { createServer } from 'node:http';
import { Client } from '@elastic/elasticsearch';
import { loadConfig } from '@app/shared/config/load-config';
import { elasticsearchNodes } from '@app/shared/search/search.client';
import { openRawSoftDelete, rawSoftDelete } from './lib/raw-soft-delete';

const [port] = process.argv.slice(2);
const config = loadConfig();
const engine = new Client({ nodes: elasticsearchNodes(config.ELASTICSEARCH_URL) });
const deleter = openRawSoftDelete(config, engine);

const server = createServer((incoming, answer) => {
  const id = (incoming.url ?? '/').slice(1);
  if (incoming.method !== 'DELETE') {
    answer.writeHead(200, { 'content-type': 'application/json' }).end('{"ready":true}');
    return;
  }
  rawSoftDelete(deleter, id).then(
    () =>
      answer
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ id, state: 'soft_deleted' })),
    (error: unknown) => answer.writeHead(500, { 'content-type': 'text/plain' }).end(String(error)),
  );
});
server.listen(Number(port), '127.0.0.1', () => console.log('listening'));
process.on('SIGTERM', () =>
  server.close(() => {
    void Promise.all([deleter.close(), engine.close()]).finally(() => process.exit(0));
  }),
);
