import { SpanKind, TraceFlags, trace, type Attributes, type Context, type Link } from '@opentelemetry/api';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  SamplingDecision,
  TraceIdRatioBasedSampler,
  type Sampler,
  type SamplingResult,
} from '@opentelemetry/sdk-trace';
import type { AppConfig } from '../config/config.schema';

/**
 * A parent-based sampler that also counts a job's sender as its parent. A job's `process` span
 * starts a trace of its own with a link to the span that queued the job (queue/job-trace.ts), so
 * a plain parent-based sampler would see a root and sample it afresh: at 5 %, the purge of a
 * sampled request would be kept one time in twenty, and an unsampled request's purge would be
 * kept as often. A consumer span without a parent but with a link takes the link's decision.
 */
export class LinkedSenderSampler implements Sampler {
  constructor(private readonly parentBased: Sampler) {}

  shouldSample(
    context: Context,
    traceId: string,
    spanName: string,
    spanKind: SpanKind,
    attributes: Attributes,
    links: Link[],
  ): SamplingResult {
    const [sender] = links;
    if (spanKind === SpanKind.CONSUMER && sender && trace.getSpanContext(context) === undefined) {
      const sampled = (sender.context.traceFlags & TraceFlags.SAMPLED) !== 0;
      return { decision: sampled ? SamplingDecision.RECORD_AND_SAMPLED : SamplingDecision.NOT_RECORD };
    }
    return this.parentBased.shouldSample(context, traceId, spanName, spanKind, attributes, links);
  }

  toString(): string {
    return `LinkedSenderSampler{${this.parentBased.toString()}}`;
  }
}

/**
 * The sampler OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG name, as the SDK would build it
 * from them (the ratio defaults to 1), its parent-based kinds following a job's sender too. The
 * configuration schema has already refused any other name.
 */
export function samplerFor(
  config: Pick<AppConfig, 'OTEL_TRACES_SAMPLER' | 'OTEL_TRACES_SAMPLER_ARG'>,
): Sampler {
  const ratio = new TraceIdRatioBasedSampler(config.OTEL_TRACES_SAMPLER_ARG ?? 1);
  switch (config.OTEL_TRACES_SAMPLER) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio;
    case 'parentbased_always_on':
      return new LinkedSenderSampler(new ParentBasedSampler({ root: new AlwaysOnSampler() }));
    case 'parentbased_always_off':
      return new LinkedSenderSampler(new ParentBasedSampler({ root: new AlwaysOffSampler() }));
    case 'parentbased_traceidratio':
      return new LinkedSenderSampler(new ParentBasedSampler({ root: ratio }));
  }
}
