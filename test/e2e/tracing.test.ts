import { randomUUID } from 'node:crypto';
import type { JobTrace } from '@app/shared/queue/job-trace';
import { JobQueues } from '@app/shared/queue/job-queues.service';
import { deletionJobId } from '@app/shared/queue/jobs';
import { bootSystem } from '../support/boot';
import { startModuleProbe, type ModuleProbe } from '../support/module-probe';
import { SPAN_KIND, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver';
import { jsonLogLines, waitFor, type RunningProcess } from '../support/processes';
import { remains, seedVideos } from '../support/seed';
import { call, startSystem, token, type System } from '../support/system';

const admin = token('boss', ['admin']);

/** Deadlines of this file's waits: spans are exported every OTEL_BSP_SCHEDULE_DELAY (below). */
const SPANS_WITHIN_MS = 20_000;
const PURGE_WITHIN_MS = 30_000;
const PROBE_WITHIN_MS = 10_000;
const START_WITHIN_MS = 120_000;
const TEST_WITHIN_MS = 90_000;

/**
 * Packages only tracing brings. The Elasticsearch client and prom-client load @opentelemetry/api
 * (and the client @opentelemetry/core and semantic-conventions) themselves, with tracing or not.
 */
const TRACING_ONLY =
  /^(@opentelemetry\/(?!api$|core$|semantic-conventions$)|@fastify\/otel$|require-in-the-middle$|import-in-the-middle$|protobufjs$|@grpc\/)/;

/** The repository's module that holds the SDK's setup (built into dist/). */
const SDK_MODULE = /\/libs\/shared\/src\/telemetry\/sdk\.js$/;

interface LogLine {
  msg: string;
  reqId?: string;
  videoId?: string;
  trace_id?: string;
  span_id?: string;
}

/** The store a client span talks to, as its instrumentation names it. */
function storeOf(span: ReceivedSpan): string | undefined {
  const system = span.attributes['db.system.name'] ?? span.attributes['db.system'];
  if (system !== undefined) return String(system);
  return span.attributes['rpc.system'] === 'aws-api'
    ? `aws ${String(span.attributes['rpc.service'])}`
    : undefined;
}

/** One trace: its root, and whether a span descends from another through its parents. */
function traceView(spans: ReceivedSpan[], traceId: string) {
  const own = spans.filter((span) => span.traceId === traceId);
  const byId = new Map(own.map((span) => [span.spanId, span]));
  const ancestors = (span: ReceivedSpan) => {
    const found: ReceivedSpan[] = [];
    for (let at = span.parentSpanId; at !== undefined; at = byId.get(at)?.parentSpanId) {
      const parent = byId.get(at);
      if (!parent) break;
      found.push(parent);
    }
    return found;
  };
  const roots = own.filter((span) => span.parentSpanId === undefined);
  return {
    spans: own,
    roots,
    descendsFrom: (span: ReceivedSpan, ancestor: ReceivedSpan) => ancestors(span).includes(ancestor),
    /** The stores the descendants of `ancestor` talked to. */
    storesUnder: (ancestor: ReceivedSpan) =>
      new Set(
        own
          .filter((span) => span.kind === SPAN_KIND.client && ancestors(span).includes(ancestor))
          .map(storeOf)
          .filter((store) => store !== undefined),
      ),
  };
}

describe('tracing (docs/tracing.md)', () => {
  let queues: JobQueues;
  let receiver: OtlpReceiver;
  let probe: ModuleProbe;
  // Each describe below starts the processes as it needs them.
  const boot = bootSystem({ system: false });

  beforeAll(async () => {
    queues = boot.context.get(JobQueues);
    receiver = await startOtlpReceiver();
    probe = startModuleProbe();
  });

  afterAll(async () => {
    await receiver?.close();
    probe?.remove();
  });

  const pidOf = (running: RunningProcess) => running.child.pid!;

  /** Each call as its own request id, which the API's log line for it carries. */
  const request = async (system: Pick<System, 'api'>, method: string, path: string) => {
    const requestId = `tracing-${randomUUID()}`;
    const response = await call(method, `${system.api}${path}`, admin, { 'x-request-id': requestId });
    return { ...response, requestId };
  };
  const purged = (id: string) =>
    waitFor(
      `purge of ${id}`,
      async () => {
        const left = await remains(boot.context, id);
        return left.row === null && left.audits.length === 1 ? left : undefined;
      },
      { timeoutMs: PURGE_WITHIN_MS },
    );
  /** The log line a process wrote with `match`, once written. */
  const logLine = (running: RunningProcess, fragment: string, match: (line: LogLine) => boolean) =>
    waitFor(
      `a log line with ${fragment}`,
      () => Promise.resolve(jsonLogLines<LogLine>(running, fragment).find(match)),
      { timeoutMs: SPANS_WITHIN_MS },
    );

  describe('off: OTEL_EXPORTER_OTLP_ENDPOINT unset', () => {
    let system: System;

    beforeAll(async () => {
      system = await startSystem({ ...probe.env, LOG_LEVEL: 'info', PURGE_SWEEP_INTERVAL_MS: '1000' });
    }, START_WITHIN_MS);

    afterAll(() => system?.stop(), 60_000);

    it(
      'no OpenTelemetry SDK, exporter or instrumentation is loaded, whatever the processes did, and jobs carry nothing more',
      async () => {
        const [soft, permanent] = await seedVideos(boot.context, 2, { title: (i) => `Untraced wombat ${i}` });
        expect((await request(system, 'GET', '/api/videos/search?q=untraced%20wombat')).status).toBe(200);
        expect((await request(system, 'DELETE', `/api/videos/${soft}`)).status).toBe(200);
        expect((await request(system, 'DELETE', `/api/videos/${permanent}?permanent=true`)).status).toBe(200);
        await purged(permanent!);

        const job = await queues.queue('video-deletion').getJob(deletionJobId(soft!));
        expect(job!.data).not.toHaveProperty('traceContext');

        const [api, worker] = system.processes;
        for (const running of [api!, worker!]) {
          const { packages, files } = await probe.loaded(pidOf(running), PROBE_WITHIN_MS);
          // The probe saw the process's modules: the product's own among them.
          expect(packages).toContain('@nestjs/core');
          expect(packages).toContain('@opentelemetry/api');
          expect([...packages].filter((name) => TRACING_ONLY.test(name))).toEqual([]);
          expect(files.filter((file) => SDK_MODULE.test(file))).toEqual([]);
        }
        const completed = await logLine(api!, 'request completed', () => true);
        expect(completed.trace_id).toBeUndefined();
        expect(receiver.received()).toBe(0);
      },
      TEST_WITHIN_MS,
    );
  });

  describe('on: OTEL_EXPORTER_OTLP_ENDPOINT set', () => {
    let system: System;
    let api: RunningProcess;
    let worker: RunningProcess;

    beforeAll(async () => {
      system = await startSystem({
        ...probe.env,
        LOG_LEVEL: 'info',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        // The receiver reads the JSON mapping; production's default is http/protobuf.
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '200',
      });
      [api, worker] = system.processes as [RunningProcess, RunningProcess];
    }, START_WITHIN_MS);

    afterAll(() => system?.stop(), 60_000);

    /**
     * The trace of the API's request `requestId`, found through the request's log line (which so
     * carries the trace id), once every span `complete` asks for has arrived.
     */
    const traceOfRequest = async (
      requestId: string,
      complete: (trace: ReturnType<typeof traceView>) => boolean,
      logged: RunningProcess = api,
    ) => {
      const line = await logLine(logged, 'request completed', (l) => l.reqId === requestId);
      expect(line.trace_id).toMatch(/^[0-9a-f]{32}$/);
      const trace = await waitFor(
        `the spans of request ${requestId}`,
        () => {
          const view = traceView(receiver.spans(), line.trace_id!);
          return Promise.resolve(view.roots.length === 1 && complete(view) ? view : undefined);
        },
        { timeoutMs: SPANS_WITHIN_MS },
      );
      const [root] = trace.roots;
      // The HTTP server span is the trace's root, and the log line was written within the trace.
      expect(root).toMatchObject({ service: 'video-api', kind: SPAN_KIND.server });
      expect(trace.spans.map((span) => span.spanId)).toContain(line.span_id);
      return { trace, root: root! };
    };

    /** The worker's span for the deletion job of `id`, once received. */
    const purgeSpan = (id: string, complete: (purge: ReceivedSpan) => boolean = () => true) =>
      waitFor(
        `the purge span of ${id}`,
        () =>
          Promise.resolve(
            receiver
              .spans()
              .find(
                (span) =>
                  span.name === 'process video-deletion' &&
                  span.attributes['messaging.message.id'] === deletionJobId(id) &&
                  complete(span),
              ),
          ),
        { timeoutMs: SPANS_WITHIN_MS },
      );

    it(
      "a soft delete: MySQL, Redis and Elasticsearch under the request's server span; the purge, when it runs, starts a trace of its own linked to the request's",
      async () => {
        const [id] = await seedVideos(boot.context, 1, { title: () => 'Traced platypus' });
        const { status, requestId } = await request(system, 'DELETE', `/api/videos/${id}`);
        expect(status).toBe(200);

        const { trace, root } = await traceOfRequest(requestId, (view) =>
          ['mysql', 'redis', 'elasticsearch'].every((store) => view.storesUnder(view.roots[0]!).has(store)),
        );
        expect(root.attributes).toMatchObject({
          'http.request.method': 'DELETE',
          'http.route': '/api/videos/:id',
          'url.path': `/api/videos/${id}`,
        });
        const send = trace.spans.find((span) => span.name === 'send video-deletion')!;
        expect(send.kind).toBe(SPAN_KIND.producer);
        expect(trace.descendsFrom(send, root)).toBe(true);

        // Whenever the purge runs, even 30 days on, its job carries this trace's context.
        const job = await queues.queue('video-deletion').getJob(deletionJobId(id!));
        expect(await job!.getState()).toBe('delayed');
        expect((job!.data as JobTrace).traceContext?.traceparent).toBe(
          `00-${root.traceId}-${send.spanId}-01`,
        );

        // A permanent delete brings the purge forward: the job keeps the soft delete's context, and
        // its span is the root of another trace than either request's, with a link to the soft
        // delete's `send` span.
        const permanent = await request(system, 'DELETE', `/api/videos/${id}?permanent=true`);
        expect(permanent.status).toBe(200);
        await purged(id!);
        const purge = await purgeSpan(id!);
        expect(purge).toMatchObject({ service: 'video-worker', kind: SPAN_KIND.consumer });
        expect(purge.parentSpanId).toBeUndefined();
        expect(purge.traceId).not.toBe(root.traceId);
        expect(purge.links).toEqual([{ traceId: root.traceId, spanId: send.spanId }]);
        const promoted = await logLine(
          api,
          'request completed',
          (line) => line.reqId === permanent.requestId,
        );
        expect(purge.traceId).not.toBe(promoted.trace_id);
      },
      TEST_WITHIN_MS,
    );

    it(
      "a search: Elasticsearch and MySQL under the request's server span",
      async () => {
        await seedVideos(boot.context, 2, { title: (i) => `Traced echidna ${i}` });
        const { status, requestId } = await request(system, 'GET', '/api/videos/search?q=traced%20echidna');
        expect(status).toBe(200);
        const { root } = await traceOfRequest(requestId, (view) =>
          ['elasticsearch', 'mysql'].every((store) => view.storesUnder(view.roots[0]!).has(store)),
        );
        expect(root.attributes).toMatchObject({ 'http.route': '/api/videos/search' });
      },
      TEST_WITHIN_MS,
    );

    it(
      "a permanent delete: the worker's purge starts a trace of its own, linked to the request's `send` span, with its S3, Elasticsearch and MySQL calls under it",
      async () => {
        const [id] = await seedVideos(boot.context, 1, { title: () => 'Traced numbat', objectsPerVideo: 3 });
        const { status, requestId } = await request(system, 'DELETE', `/api/videos/${id}?permanent=true`);
        expect(status).toBe(200);
        await purged(id!);

        const { trace: requestTrace, root } = await traceOfRequest(requestId, (view) =>
          view.spans.some((span) => span.name === 'send video-deletion'),
        );
        const send = requestTrace.spans.find((span) => span.name === 'send video-deletion')!;
        expect(send).toMatchObject({ service: 'video-api', kind: SPAN_KIND.producer });
        expect(requestTrace.spans.some((span) => span.name === 'process video-deletion')).toBe(false);

        const purge = await purgeSpan(id!, (span) => {
          const view = traceView(receiver.spans(), span.traceId);
          return ['aws S3', 'elasticsearch', 'mysql'].every((store) => view.storesUnder(span).has(store));
        });
        expect(purge).toMatchObject({ service: 'video-worker', kind: SPAN_KIND.consumer });
        expect(purge.parentSpanId).toBeUndefined();
        expect(purge.traceId).not.toBe(root.traceId);
        expect(purge.links).toEqual([{ traceId: root.traceId, spanId: send.spanId }]);
        // Every span of the purge's own trace is the worker's, under the purge.
        const trace = traceView(receiver.spans(), purge.traceId);
        expect(trace.roots).toEqual([purge]);
        expect(new Set(trace.spans.map((span) => span.service))).toEqual(new Set(['video-worker']));

        // The worker's log line for the job carries the purge's trace, and a span of it under the purge.
        const done = await logLine(worker, 'deletion job done', (line) => line.videoId === id);
        expect(done.trace_id).toBe(purge.traceId);
        const logged = trace.spans.find((span) => span.spanId === done.span_id)!;
        expect(logged === purge || trace.descendsFrom(logged, purge)).toBe(true);
      },
      TEST_WITHIN_MS,
    );

    it(
      'a graceful shutdown exports the spans still buffered',
      async () => {
        // An API whose batch would wait ten minutes: only the shutdown's flush can send its spans.
        const late = await system.startApi({ OTEL_BSP_SCHEDULE_DELAY: '600000' });
        const { status, requestId } = await request({ api: late.url }, 'GET', '/api/videos/search?q=flushed');
        expect(status).toBe(200);
        // Nest closes the application, then the process ends by the signal it was sent.
        await late.process.stop('SIGTERM');
        const { root } = await traceOfRequest(
          requestId,
          (view) => view.storesUnder(view.roots[0]!).has('elasticsearch'),
          late.process,
        );
        expect(root.attributes).toMatchObject({ 'http.route': '/api/videos/search' });
      },
      TEST_WITHIN_MS,
    );

    it(
      'the processes did load the SDK and its instrumentations (what the probe found absent with tracing off)',
      async () => {
        for (const running of [api, worker]) {
          const { packages, files } = await probe.loaded(pidOf(running), PROBE_WITHIN_MS);
          for (const name of [
            '@opentelemetry/sdk-node',
            '@opentelemetry/exporter-trace-otlp-http',
            '@opentelemetry/instrumentation-http',
            '@opentelemetry/instrumentation-mysql2',
            '@opentelemetry/instrumentation-ioredis',
            '@opentelemetry/instrumentation-aws-sdk',
            '@opentelemetry/instrumentation-pino',
            '@fastify/otel',
          ])
            expect(packages).toContain(name);
          expect(files.filter((file) => SDK_MODULE.test(file))).toHaveLength(1);
        }
      },
      TEST_WITHIN_MS,
    );
  });
});
