import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { samplerFor } from '../telemetry/job-sampler';
import { processTraced, sendTraced, type JobTrace, type TracedJob } from './job-trace';

describe("a job's trace context", () => {
  const exporter = new InMemorySpanExporter();
  // The SDK as the processes start it (W3C propagation, parent-based sampling), spans kept in memory.
  const sdk = new NodeSDK({
    sampler: samplerFor({ OTEL_TRACES_SAMPLER: 'parentbased_always_on' }),
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
    metricReaders: [],
    logRecordProcessors: [],
    autoDetectResources: false,
  });
  const tracer = trace.getTracer('job-trace.spec');
  const deletion = { queue: 'video-deletion', name: 'delete-video', id: 'delete-v1' };
  const job = (data: unknown): TracedJob => ({
    queueName: 'video-deletion',
    name: 'delete-video',
    id: 'delete-v1',
    attemptsMade: 0,
    data,
  });
  const named = (name: string) => exporter.getFinishedSpans().find((span) => span.name === name)!;
  const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

  beforeAll(() => sdk.start());
  afterAll(() => sdk.shutdown());
  beforeEach(() => exporter.reset());

  it('without tracing, the job is queued and run as it always was: nothing kept, no span', async () => {
    const kept = await sendTraced(false, deletion, (traceContext) => Promise.resolve(traceContext));
    expect(kept).toBeUndefined();
    await expect(processTraced(false, job({ videoId: 'v1' }), () => Promise.resolve('done'))).resolves.toBe(
      'done',
    );
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it("the worker's span for a job starts a trace of its own, linked to the span that queued it", async () => {
    const data = await tracer.startActiveSpan('DELETE /api/videos/:id', async (request) => {
      const stored = await sendTraced(true, deletion, (traceContext) =>
        Promise.resolve({ videoId: 'v1', traceContext } satisfies JobTrace & { videoId: string }),
      );
      request.end();
      return stored;
    });
    // What Redis hands the worker back: plain JSON, read in a context of its own.
    const read: unknown = JSON.parse(JSON.stringify(data));
    await context.with(ROOT_CONTEXT, () =>
      processTraced(true, job(read), async () => {
        tracer.startSpan('DELETE FROM videos').end();
        return Promise.resolve();
      }),
    );

    const request = named('DELETE /api/videos/:id');
    const send = named('send video-deletion');
    const processing = named('process video-deletion');
    const query = named('DELETE FROM videos');
    const traceId = request.spanContext().traceId;
    expect(send.spanContext().traceId).toBe(traceId);
    expect(parentOf(send)).toBe(request.spanContext().spanId);
    // The job's span is a root, in another trace, and links to its sender; its work is under it.
    expect(processing.spanContext().traceId).not.toBe(traceId);
    expect(parentOf(processing)).toBeUndefined();
    expect(processing.links.map((link) => link.context)).toEqual([
      expect.objectContaining({ traceId, spanId: send.spanContext().spanId }),
    ]);
    expect(query.spanContext().traceId).toBe(processing.spanContext().traceId);
    expect(parentOf(query)).toBe(processing.spanContext().spanId);
    expect(send.kind).toBe(SpanKind.PRODUCER);
    expect(processing.kind).toBe(SpanKind.CONSUMER);
    expect(processing.attributes).toMatchObject({
      'messaging.system': 'bullmq',
      'messaging.destination.name': 'video-deletion',
      'messaging.message.id': 'delete-v1',
      'bullmq.job.name': 'delete-video',
      'bullmq.job.attempt': 1,
    });
    expect(Object.keys(data.traceContext!)).toContain('traceparent');
  });

  it('a job queued outside any trace (a sweep, a job from before tracing was on) starts a trace of its own', async () => {
    await tracer.startActiveSpan('an unrelated request', async (unrelated) => {
      // Whatever the worker's loop holds is not the job's parent.
      await processTraced(true, job({ videoId: 'v1' }), () => Promise.resolve());
      unrelated.end();
    });
    const processing = named('process video-deletion');
    expect(parentOf(processing)).toBeUndefined();
    expect(processing.links).toEqual([]);
    expect(processing.spanContext().traceId).not.toBe(named('an unrelated request').spanContext().traceId);
  });

  it("keeps the sampling decision of the request through the link: an unsampled request's purge is not sampled either", async () => {
    let ran = false;
    const unsampled = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00' };
    await processTraced(true, job({ videoId: 'v1', traceContext: unsampled }), () => {
      ran = true;
      return Promise.resolve();
    });
    expect(ran).toBe(true);
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it("a failed job's span says so, and the failure reaches the runner (which retries the job)", async () => {
    const failure = new Error('S3 is away');
    await expect(processTraced(true, job({ videoId: 'v1' }), () => Promise.reject(failure))).rejects.toBe(
      failure,
    );
    const processing = named('process video-deletion');
    expect(processing.status.code).toBe(SpanStatusCode.ERROR);
    expect(processing.events.map((event) => event.name)).toEqual(['exception']);
  });
});
