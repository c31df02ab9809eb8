import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Span,
  type SpanContext,
} from '@opentelemetry/api';

/**
 * The trace context of the span that asked for a job, as the configured propagator writes it
 * (W3C: `traceparent`, `tracestate`), kept in the job's data beside its request id. Only a string
 * map in Redis: the job's own trace links to it however much later it runs, and the sender's
 * sampling decision travels with it.
 */
export type TraceCarrier = Record<string, string>;

/** What a job's data holds beside its payload when it was queued within a trace. */
export interface JobTrace {
  traceContext?: TraceCarrier;
}

/** The job as the runner sees it: what names its span. */
export interface TracedJob {
  queueName: string;
  name: string;
  id?: string;
  attemptsMade: number;
  data: unknown;
}

// A proxy until the SDK registers its provider (if it ever does): taking it at load costs nothing.
const tracer = trace.getTracer('video-jobs');

const messaging = (operation: 'send' | 'process', queue: string, name: string, id?: string): Attributes => ({
  'messaging.system': 'bullmq',
  'messaging.operation.type': operation,
  'messaging.operation.name': operation,
  'messaging.destination.name': queue,
  'bullmq.job.name': name,
  ...(id === undefined ? {} : { 'messaging.message.id': id }),
});

/** Runs `work` as `span`'s body: its error marks the span and goes on to the caller. */
async function within<T>(span: Span, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    span.recordException(error instanceof Error ? error : String(error));
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
}

/**
 * Queues a job (`add`: the Redis calls that do it) within a `send <queue>` producer span when
 * `tracing` is on, and hands `add` that span's context to keep in the job's data; without
 * tracing, `add` alone with nothing to keep, so the job's data is what it always was.
 */
export function sendTraced<T>(
  tracing: boolean,
  job: { queue: string; name: string; id?: string },
  add: (traceContext: TraceCarrier | undefined) => Promise<T>,
): Promise<T> {
  if (!tracing) return add(undefined);
  return tracer.startActiveSpan(
    `send ${job.queue}`,
    { kind: SpanKind.PRODUCER, attributes: messaging('send', job.queue, job.name, job.id) },
    (span) =>
      within(span, () => {
        const carrier: TraceCarrier = {};
        propagation.inject(context.active(), carrier);
        return add(Object.keys(carrier).length > 0 ? carrier : undefined);
      }),
  );
}

/** The context of the span that queued the job, when its data carries a valid one. */
function senderOf(job: TracedJob): SpanContext | undefined {
  const carrier = (job.data as JobTrace | null | undefined)?.traceContext;
  if (!carrier) return undefined;
  const sender = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, carrier));
  return sender && trace.isSpanContextValid(sender) ? sender : undefined;
}

/**
 * Runs a job within a `process <queue>` consumer span when `tracing` is on. The span is always the
 * root of a trace of its own, with a link to the span that queued the job when the job's data
 * carries its context (OpenTelemetry's messaging conventions for asynchronous consumers): a purge
 * may run 30 days after its request, beyond any backend's retention of the request's trace, and a
 * job that waited behind others, was retried or was promoted is no less detached from its sender.
 * Every span the job's work makes, its queries, index and storage calls, falls under it. The
 * sampler (`telemetry/job-sampler.ts`) keeps the sender's sampling decision for such a span.
 */
export function processTraced<T>(tracing: boolean, job: TracedJob, run: () => Promise<T>): Promise<T> {
  if (!tracing) return run();
  const sender = senderOf(job);
  return tracer.startActiveSpan(
    `process ${job.queueName}`,
    {
      kind: SpanKind.CONSUMER,
      // A new trace whatever the worker's loop happens to hold: the sender is a link, not a parent.
      root: true,
      links: sender ? [{ context: sender }] : [],
      attributes: {
        ...messaging('process', job.queueName, job.name, job.id),
        'bullmq.job.attempt': job.attemptsMade + 1,
      },
    },
    ROOT_CONTEXT,
    (span) => within(span, run),
  );
}
