import type { IncomingMessage } from 'node:http';
import type { Attributes, Context, Link, SpanKind } from '@opentelemetry/api';
import type * as TraceBase from '@opentelemetry/sdk-trace-base';
import type { Sampler, SamplingResult } from '@opentelemetry/sdk-trace-base';
import type { TracingConfig } from '../config/config.js';
import type { RootSampling } from '../http/http-app.js';
import { openTelemetry } from '../shared/tracing.js';

/**
 * Which requests are traced, decided once per request.
 *
 * The specification's samplers decide when a span starts, inside Fastify.
 * The v1 listing's fast lane answers in front of Fastify, so with tracing on
 * it had to step aside for every request, sampled or not, and tracing cost
 * the listing half its throughput. Here the lane asks first: a request that
 * carries a `traceparent` goes to Fastify, whose sampler follows the parent;
 * for the others the root decision is taken at once (with the configured
 * ratio) and carried in OpenTelemetry's context to the sampler, which then
 * takes it instead of deciding again. So the lane answers the requests that
 * would not be traced (no span for them: a sampled-out request costs one
 * random number), and each request is sampled with the configured
 * probability whichever path answers it.
 */
export function createRootSampling({ name, ratio }: TracingConfig['sampler'], traceBase: typeof TraceBase): { sampler: Sampler; rootSampling: RootSampling } {
  const { context, createContextKey } = openTelemetry();
  const { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, SamplingDecision, TraceIdRatioBasedSampler } = traceBase;
  const decided = createContextKey('store-orders: the root sampling decision of this request');
  const ratioSampler: Sampler = name.endsWith('always_on') ? new AlwaysOnSampler() : name.endsWith('always_off') ? new AlwaysOffSampler() : new TraceIdRatioBasedSampler(ratio);
  const keep = name.endsWith('always_on') ? 1 : name.endsWith('always_off') ? 0 : ratio;

  /** The configured root sampler, unless the request's decision was already taken (and carried in the context). */
  const root: Sampler = {
    shouldSample(active: Context, traceId: string, spanName: string, kind: SpanKind, attributes: Attributes, links: Link[]): SamplingResult {
      const taken = active.getValue(decided);
      if (taken === true) return { decision: SamplingDecision.RECORD_AND_SAMPLED };
      if (taken === false) return { decision: SamplingDecision.NOT_RECORD };
      return ratioSampler.shouldSample(active, traceId, spanName, kind, attributes, links);
    },
    toString: () => `DecidedOnce{${ratioSampler.toString()}}`,
  };
  const parentBased = name.startsWith('parentbased_');
  return {
    sampler: parentBased ? new ParentBasedSampler({ root }) : root,
    rootSampling: {
      // A parent-based sampler follows a caller's traceparent, which only Fastify's span reads.
      decide: (req: IncomingMessage) => (parentBased && req.headers.traceparent !== undefined ? undefined : keep > 0 && (keep >= 1 || Math.random() < keep)),
      carry: (decision: boolean, next: () => void) => context.with(context.active().setValue(decided, decision), next),
    },
  };
}
