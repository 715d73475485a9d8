import { createRequire } from 'node:module';
import type * as OpenTelemetryApi from '@opentelemetry/api';
import type { Attributes, Link, Span } from '@opentelemetry/api';

const require = createRequire(import.meta.url);
let api: typeof OpenTelemetryApi | undefined;
/**
 * OpenTelemetry's API (CommonJS, 45 modules), required at its first use:
 * a CLI command that delivers nothing never loads it. Its state is global
 * (the SDK registers itself there), so this is the same API the SDK and
 * @fastify/otel see.
 */
export function openTelemetry(): typeof OpenTelemetryApi {
  api ??= require('@opentelemetry/api') as typeof OpenTelemetryApi;
  return api;
}

/** Our spans' instrumentation scope. */
const TRACER_NAME = 'store-orders';

/**
 * The active span's ids for a log line (pino `mixin`), as the OpenTelemetry
 * log data model names them: `trace_id`, `span_id`. Installed only while
 * tracing is on (http/logging.ts), so a line costs nothing more otherwise.
 * None for a request that was not sampled: there is no trace to find.
 */
export function activeTraceIds(): { trace_id?: string; span_id?: string } {
  const span = openTelemetry().trace.getActiveSpan();
  if (span === undefined) return {};
  const { traceId, spanId, traceFlags } = span.spanContext();
  // The sampled flag (W3C trace-flags bit 0), not isRecording(): the request's last line is written after its span ended.
  if ((traceFlags & 1) === 0) return {};
  return { trace_id: traceId, span_id: spanId };
}

/**
 * Adds the active trace context (`traceparent`, and `tracestate` when there
 * is one) to the headers of an outgoing request, so that the receiver's spans
 * join the trace that caused it (webhook deliveries). Leaves them untouched
 * when tracing is off: without a registered propagator this does nothing.
 */
export function injectTraceContext(headers: Record<string, string>): Record<string, string> {
  const { context, propagation } = openTelemetry();
  propagation.inject(context.active(), headers);
  return headers;
}

function failed(span: Span, error: unknown): void {
  span.setStatus({ code: openTelemetry().SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
  if (error instanceof Error) span.recordException(error);
}

/**
 * Runs `work` in a span of its own (a child of the active one), ended when
 * its result settles; a failure marks the span as an error. Synchronous work
 * is measured too. Only called where tracing is on (the composition root
 * wraps collaborators with it then), so it is not on any path otherwise.
 */
export function inSpan<T>(name: string, { attributes, links }: { attributes: Attributes; links?: Link[] }, work: () => T): T {
  return openTelemetry().trace.getTracer(TRACER_NAME).startActiveSpan(name, { attributes, ...(links === undefined ? {} : { links }) }, (span) => {
    let result: T;
    try {
      result = work();
    } catch (error) {
      failed(span, error);
      span.end();
      throw error;
    }
    if (!(result instanceof Promise)) {
      span.end();
      return result;
    }
    return result.then(
      (value: unknown) => {
        span.end();
        return value;
      },
      (error: unknown) => {
        failed(span, error);
        span.end();
        throw error;
      },
    ) as T;
  });
}
