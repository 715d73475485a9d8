import type { Span } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_HTTP_ROUTE, ATTR_SERVICE_NAME, ATTR_URL_PATH } from '@opentelemetry/semantic-conventions';
import { FastifyOtelInstrumentation } from '@fastify/otel';
import type { FastifyRequest } from 'fastify';
import { loadConfig, type TracingConfig } from './config/config.js';

/** The process's tracing, when it is on: the hosts' instrumentation, and the flush that ends it. */
export interface ProcessTracing {
  /** @fastify/otel, registered by each host before its routes (http/http-app.ts). */
  readonly http: FastifyOtelInstrumentation;
  /** Exports the spans still buffered and stops; the process ends after it. */
  shutdown(): Promise<void>;
}

/**
 * The server span's name and path as the HTTP conventions want them: `GET
 * /v1/store/orders/:orderId`, and the path without its query (a caller may
 * put a key or personal data there, as the log lines assume).
 */
function nameServerSpan(span: Span, request: FastifyRequest): void {
  const route = request.routeOptions.url;
  span.updateName(route === undefined ? request.method : `${request.method} ${route}`);
  const queryStart = request.url.indexOf('?');
  span.setAttribute(ATTR_URL_PATH, queryStart === -1 ? request.url : request.url.slice(0, queryStart));
  if (route !== undefined) span.setAttribute(ATTR_HTTP_ROUTE, route);
}

/**
 * Starts OpenTelemetry tracing: spans batched to the OTLP/HTTP endpoint
 * (JSON), W3C `traceparent` propagation, async context through
 * AsyncLocalStorage, and the `pg` instrumentation. Other OTEL_* variables of
 * the SDK specification (OTEL_EXPORTER_OTLP_HEADERS, OTEL_BSP_*,
 * OTEL_TRACES_SAMPLER, OTEL_RESOURCE_ATTRIBUTES) are read by the SDK itself.
 *
 * The instrumentation of `pg` patches the module as Node's `require` loads
 * it (pg is CommonJS: our ESM `import pg` loads it through the CommonJS
 * loader, whose require of pg/lib/client.js and pg-pool the hook sees), so
 * this must run before anything imports pg: cli/main.ts imports this module
 * first. Spans with no parent (the dispatcher's polls) are not recorded.
 */
function startTracing({ tracesUrl, serviceName }: TracingConfig): ProcessTracing {
  const resource = defaultResource()
    .merge(detectResources({ detectors: [envDetector] }))
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: tracesUrl }))] });
  provider.register();
  const http = new FastifyOtelInstrumentation({ instrumentHooks: false, requestHook: nameServerSpan });
  registerInstrumentations({ tracerProvider: provider, instrumentations: [new PgInstrumentation({ requireParentSpan: true }), http] });
  return { http, shutdown: () => provider.shutdown() };
}

function startFromEnvironment(): ProcessTracing | undefined {
  try {
    const { tracing } = loadConfig();
    return tracing === null ? undefined : startTracing(tracing);
  } catch {
    // The CLI reads the configuration again and reports every problem in it.
    return undefined;
  }
}

/**
 * Started as this module is evaluated, because that is the only moment that
 * comes before `pg` loads: a process-wide resource on purpose, handed from
 * cli/main.ts to the server explicitly. Undefined when tracing is off (the
 * default), in which case nothing of OpenTelemetry runs.
 */
export const processTracing: ProcessTracing | undefined = startFromEnvironment();
