import type { IncomingMessage } from 'node:http';
import { FastifyOtelInstrumentation } from '@fastify/otel';
import { AwsInstrumentation } from '@opentelemetry/instrumentation-aws-sdk';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { MySQL2Instrumentation } from '@opentelemetry/instrumentation-mysql2';
import { PinoInstrumentation } from '@opentelemetry/instrumentation-pino';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { AppConfig } from '../config/config.schema';
import { samplerFor } from './job-sampler';

/** What `stopTracing` needs of the SDK. */
export interface RunningSdk {
  shutdown(): Promise<void>;
}

/**
 * Probes and scrapes: a readiness probe every few seconds would be most of the traces, each saying
 * that MySQL, Redis, Elasticsearch and S3 answered. Ignored requests run with tracing suppressed,
 * so their queries leave no spans either.
 */
const untraced = (request: IncomingMessage) => /^\/(health|metrics)(\/|\?|$)/.test(request.url ?? '');

/** The longest SQL a span keeps: a batch's multi-row statement runs to tens of kilobytes of `?`. */
const MAX_SQL = 2_048;

/**
 * The statement as the code wrote it, placeholders and all. By default the instrumentation formats
 * the values into it: video titles, author ids and callers' subjects would go to the collector
 * with every query, and each query would pay for the formatting.
 */
const statementOnly = (sql: string) => (sql.length > MAX_SQL ? `${sql.slice(0, MAX_SQL)}…` : sql);

/**
 * OpenTelemetry's SDK for Node, loaded only when tracing is on (`startTracing`). Exporter, protocol,
 * propagators, batching and resource come from the standard OTEL_* variables, read by the SDK
 * itself; the sampler they name is built here, so that a job's span keeps its sender's decision
 * (`job-sampler.ts`). Traces only: metrics stay Prometheus's (`/metrics`) and logs stay JSON lines on
 * standard output, which is why the metric readers and log processors the SDK would otherwise
 * build from the environment (OTLP by default) are given as none.
 */
export function startSdk(
  serviceName: string,
  config: Pick<AppConfig, 'OTEL_TRACES_SAMPLER' | 'OTEL_TRACES_SAMPLER_ARG'>,
): RunningSdk {
  const sdk = new NodeSDK({
    serviceName,
    sampler: samplerFor(config),
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      // The server span of each request (the trace's root) and client spans of outgoing HTTP
      // calls, such as webhook deliveries, made within a trace.
      new HttpInstrumentation({ ignoreIncomingRequestHook: untraced, requireParentforOutgoingSpans: true }),
      // Names the server span after the route (`GET /api/videos/:id`); one span for the handler,
      // none for each hook of every request.
      new FastifyOtelInstrumentation({ registerOnInitialization: true, instrumentHooks: false }),
      new MySQL2Instrumentation({ maskStatement: true, maskStatementHook: statementOnly }),
      // Spans only within a trace (its default): BullMQ's blocking polls and lock renewals would
      // otherwise each be a trace of their own.
      new IORedisInstrumentation({ requireParentSpan: true }),
      // One span per S3 call, not one more for the HTTP request under it.
      new AwsInstrumentation({ suppressInternalInstrumentation: true }),
      // trace_id and span_id on every log line written within a span; the lines themselves stay
      // on standard output.
      new PinoInstrumentation({ disableLogSending: true }),
    ],
  });
  sdk.start();
  return sdk;
}
