import { ROOT_CONTEXT, SpanKind, TraceFlags, trace, type Link } from '@opentelemetry/api';
import { SamplingDecision } from '@opentelemetry/sdk-trace';
import { samplerFor } from './job-sampler';

describe('samplerFor', () => {
  const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
  const sender = (traceFlags: TraceFlags): Link => ({
    context: { traceId: TRACE_ID, spanId: 'b7ad6b7169203331', traceFlags },
  });
  const decide = (
    sampler: ReturnType<typeof samplerFor>,
    kind: SpanKind,
    links: Link[],
    context = ROOT_CONTEXT,
  ) => sampler.shouldSample(context, 'ffffffffffffffffffffffffffffffff', 'a span', kind, {}, links).decision;
  const none = samplerFor({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: 0 });
  const all = samplerFor({ OTEL_TRACES_SAMPLER: 'parentbased_always_on' });

  it("a parent-based sampler gives a job's root span its sender's decision, whatever the ratio", () => {
    expect(decide(none, SpanKind.CONSUMER, [sender(TraceFlags.SAMPLED)])).toBe(
      SamplingDecision.RECORD_AND_SAMPLED,
    );
    expect(decide(all, SpanKind.CONSUMER, [sender(TraceFlags.NONE)])).toBe(SamplingDecision.NOT_RECORD);
  });

  it('other roots, and spans with a parent, are sampled as the named sampler does', () => {
    expect(decide(none, SpanKind.SERVER, [])).toBe(SamplingDecision.NOT_RECORD);
    expect(decide(none, SpanKind.CONSUMER, [])).toBe(SamplingDecision.NOT_RECORD);
    expect(decide(all, SpanKind.SERVER, [])).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    const sampledParent = trace.setSpanContext(ROOT_CONTEXT, sender(TraceFlags.SAMPLED).context);
    expect(decide(all, SpanKind.CONSUMER, [sender(TraceFlags.NONE)], sampledParent)).toBe(
      SamplingDecision.RECORD_AND_SAMPLED,
    );
  });

  it('a sampler that is not parent-based ignores the link as it ignores a parent', () => {
    const never = samplerFor({ OTEL_TRACES_SAMPLER: 'always_off' });
    expect(decide(never, SpanKind.CONSUMER, [sender(TraceFlags.SAMPLED)])).toBe(SamplingDecision.NOT_RECORD);
  });
});
