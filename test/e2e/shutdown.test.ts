import { connect } from 'node:net';
import { bootSystem } from '../support/boot';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy';
import { sleep, waitFor } from '../support/processes';
import { remains, seedVideos } from '../support/seed';
import { call, token } from '../support/system';

const admin = token('boss', ['admin']);

describe('graceful shutdown on SIGTERM', () => {
  let proxy: FaultProxy | undefined;
  // Each test starts the processes it stops; whatever is left stops when it ends.
  const boot = bootSystem({ redis: 'own', system: false });
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
  });

  it('the API answers every request in flight, then stops accepting', async () => {
    await seedVideos(boot.context, 20, { title: (i) => `Shutdown load video ${i}` });
    // A slow index keeps every search in the API for over a second: they are surely in flight.
    proxy = await startFaultProxy(boot.context.config.ELASTICSEARCH_URL, { latencyMs: 1_500 });
    const system = await boot.start({ ELASTICSEARCH_URL: proxy.url }, { worker: false });
    const api = system.processes[0]!;
    const inFlight = Array.from({ length: 40 }, () =>
      call('GET', `${system.api}/api/videos/search?q=shutdown%20load&limit=50`, admin).then(
        (response) => response.status,
        (error: unknown) => String(error),
      ),
    );
    await sleep(500);
    const exited = api.stop('SIGTERM');
    expect(await Promise.all(inFlight)).toEqual(Array.from({ length: 40 }, () => 200));
    await exited;
    await expect(fetch(`${system.api}/health/live`)).rejects.toThrow();
  }, 60_000);

  it('a request arriving on an open connection while the API drains gets a 503 problem, and the connection closes', async () => {
    await seedVideos(boot.context, 3, { title: (i) => `Drain video ${i}` });
    proxy = await startFaultProxy(boot.context.config.ELASTICSEARCH_URL, { latencyMs: 1_500 });
    const system = await boot.start({ ELASTICSEARCH_URL: proxy.url }, { worker: false });
    const { hostname, port } = new URL(system.api);
    const socket = connect(Number(port), hostname);
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    const closed = new Promise<void>((done) => socket.on('close', () => done()));
    const search = (q: string) =>
      `GET /api/videos/search?q=${q} HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${admin}\r\n\r\n`;
    socket.write(search('drain'));
    await sleep(500);
    const exited = system.processes[0]!.stop('SIGTERM');
    await sleep(300);
    // The first search is still waiting for the slow index; this one arrives on the same connection.
    socket.write(search('late'));
    await closed;
    await exited;

    const [first, second] = received.split(/(?=HTTP\/1\.1 )/);
    expect(first).toMatch(/^HTTP\/1\.1 200 /);
    expect(second).toMatch(/^HTTP\/1\.1 503 /);
    const [head, body] = second!.split('\r\n\r\n');
    expect(head).toMatch(/^content-type: application\/problem\+json/im);
    expect(head).toMatch(/^retry-after: 1\r?$/im);
    expect(head).toMatch(/^connection: close\r?$/im);
    // Refused before any route, it still carries the headers every answer does.
    expect(head).toMatch(/^x-content-type-options: nosniff\r?$/im);
    expect(head).toMatch(/^x-frame-options: DENY\r?$/im);
    expect(head).toMatch(/^cache-control: no-store\r?$/im);
    expect(head).toMatch(/^x-request-id: [\w.-]+\r?$/im);
    expect(JSON.parse(body!)).toMatchObject({ status: 503, title: 'Service Unavailable' });
  }, 60_000);

  it('the worker finishes the deletion it is running before it exits', async () => {
    proxy = await startFaultProxy(boot.context.config.S3_ENDPOINT, { latencyMs: 300 });
    const system = await boot.start({ SHUTDOWN_TIMEOUT_MS: '60000' }, { worker: false });
    const worker = await system.startWorker({ S3_ENDPOINT: proxy.url });
    const [id] = await seedVideos(boot.context, 1, { objectsPerVideo: 2_500 });
    expect((await call('DELETE', `${system.api}/api/videos/${id}?permanent=true`, admin)).status).toBe(200);
    await waitFor(
      'the deletion to start',
      async () => ((await remains(boot.context, id!)).objects < 2_500 ? true : undefined),
      {
        timeoutMs: 30_000,
        intervalMs: 100,
      },
    );

    await worker.stop('SIGTERM', 60_000);
    // By the time the process has exited, its active job is done: nothing left anywhere.
    expect(await remains(boot.context, id!)).toMatchObject({ row: null, objects: 0, document: null });
    expect((await remains(boot.context, id!)).audits).toHaveLength(1);
  }, 120_000);

  it('a worker that cannot finish in time hands the job back, and another worker completes it', async () => {
    // Every storage call takes 2 s: the deletion needs far longer than the shutdown allows.
    proxy = await startFaultProxy(boot.context.config.S3_ENDPOINT, { latencyMs: 2_000 });
    const system = await boot.start({ SHUTDOWN_TIMEOUT_MS: '500' }, { worker: false });
    const worker = await system.startWorker({ S3_ENDPOINT: proxy.url });
    const [id] = await seedVideos(boot.context, 1, { objectsPerVideo: 3_000 });
    expect((await call('DELETE', `${system.api}/api/videos/${id}?permanent=true`, admin)).status).toBe(200);
    await waitFor(
      'the deletion to start',
      async () => ((await remains(boot.context, id!)).row?.state === 'deleting' ? true : undefined),
      {
        timeoutMs: 30_000,
        intervalMs: 100,
      },
    );

    await worker.stop('SIGTERM', 30_000);
    expect(worker.output()).toMatch(/active jobs handed back at shutdown/);
    expect((await remains(boot.context, id!)).row).toEqual({ state: 'deleting' });
    await system.startWorker();
    await waitFor(
      'the handed-back deletion',
      async () => ((await remains(boot.context, id!)).row === null ? true : undefined),
      {
        timeoutMs: 90_000,
        intervalMs: 500,
      },
    );
    expect(await remains(boot.context, id!)).toMatchObject({ objects: 0, document: null });
    expect((await remains(boot.context, id!)).audits).toHaveLength(1);
  }, 150_000);
});
