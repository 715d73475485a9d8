import { createRequire } from 'node:module';
import type { Span } from '@opentelemetry/api';
import type * as OtlpHttpExporter from '@opentelemetry/exporter-trace-otlp-http';
import type * as InstrumentationModule from '@opentelemetry/instrumentation';
import type * as PgInstrumentationModule from '@opentelemetry/instrumentation-pg';
import type * as Resources from '@opentelemetry/resources';
import type * as TraceBase from '@opentelemetry/sdk-trace-base';
import type * as TraceNode from '@opentelemetry/sdk-trace-node';
import type * as SemanticConventions from '@opentelemetry/semantic-conventions';
import type * as FastifyOtel from '@fastify/otel';
import type { FastifyRequest } from 'fastify';
import type { TracingConfig } from '../config/config.js';
import type { HttpTracing } from '../http/http-app.js';
import { createRootSampling } from './root-sampling.js';

/** The process's tracing, when it is on: the hosts' instrumentation, and the flush that ends it. */
export interface ProcessTracing {
  /** @fastify/otel, registered by each host before its routes (http/http-app.ts), and the sampling decision the fast lane asks for. */
  readonly http: HttpTracing;
  /** Exports the spans still buffered and stops; the process ends after it. */
  shutdown(): Promise<void>;
}

/**
 * OpenTelemetry's SDK is loaded only when tracing is on: loading it was
 * half of every command's start-up (0.45 s of a 0.9 s `store-orders
 * --help`). Synchronously, through require (every package here is
 * CommonJS), so that it is in place before this module's importer goes on
 * to load pg.
 */
const load = createRequire(import.meta.url);

/**
 * The server span's name and path as the HTTP conventions want them: `GET
 * /v1/store/orders/:orderId`, and the path without its query (a caller may
 * put a key or personal data there, as the log lines assume).
 */
function nameServerSpan({ ATTR_HTTP_ROUTE, ATTR_URL_PATH }: typeof SemanticConventions, span: Span, request: FastifyRequest): void {
  const route = request.routeOptions.url;
  span.updateName(route === undefined ? request.method : `${request.method} ${route}`);
  const queryStart = request.url.indexOf('?');
  span.setAttribute(ATTR_URL_PATH, queryStart === -1 ? request.url : request.url.slice(0, queryStart));
  if (route !== undefined) span.setAttribute(ATTR_HTTP_ROUTE, route);
}

/**
 * Starts OpenTelemetry tracing: spans batched to the OTLP/HTTP endpoint
 * (JSON), W3C `traceparent` propagation, async context through
 * AsyncLocalStorage, and the `pg` instrumentation, sampled as
 * OTEL_TRACES_SAMPLER says (parent-based, one new trace in ten by default:
 * root-sampling.ts). Other OTEL_* variables of the SDK specification
 * (OTEL_EXPORTER_OTLP_HEADERS, OTEL_BSP_*, OTEL_RESOURCE_ATTRIBUTES) are read
 * by the SDK itself.
 *
 * The instrumentation of `pg` patches the module as Node's `require` loads
 * it (pg is CommonJS: our ESM `import pg` loads it through the CommonJS
 * loader, whose require of pg/lib/client.js and pg-pool the hook sees), so
 * this must run before anything imports pg: cli/main.ts starts it once the
 * configuration is read, before the command's work loads pg (cli/cli.ts).
 * A process-wide resource on purpose, handed from cli/main.ts to the server
 * explicitly. Spans with no parent (the dispatcher's polls) are not
 * recorded.
 */
export function startProcessTracing({ tracesUrl, serviceName, sampler: sampling }: TracingConfig): ProcessTracing {
  const { OTLPTraceExporter } = load('@opentelemetry/exporter-trace-otlp-http') as typeof OtlpHttpExporter;
  const { registerInstrumentations } = load('@opentelemetry/instrumentation') as typeof InstrumentationModule;
  const { PgInstrumentation } = load('@opentelemetry/instrumentation-pg') as typeof PgInstrumentationModule;
  const { defaultResource, detectResources, envDetector, resourceFromAttributes } = load('@opentelemetry/resources') as typeof Resources;
  const traceBase = load('@opentelemetry/sdk-trace-base') as typeof TraceBase;
  const { NodeTracerProvider } = load('@opentelemetry/sdk-trace-node') as typeof TraceNode;
  const conventions = load('@opentelemetry/semantic-conventions') as typeof SemanticConventions;
  const { ATTR_SERVICE_NAME } = conventions;
  const { FastifyOtelInstrumentation: HttpInstrumentation } = load('@fastify/otel') as typeof FastifyOtel;
  const resource = defaultResource()
    .merge(detectResources({ detectors: [envDetector] }))
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName }));
  const { sampler, rootSampling } = createRootSampling(sampling, traceBase);
  const provider = new NodeTracerProvider({ resource, sampler, spanProcessors: [new traceBase.BatchSpanProcessor(new OTLPTraceExporter({ url: tracesUrl }))] });
  provider.register();
  const http = new HttpInstrumentation({ instrumentHooks: false, requestHook: (span, request) => nameServerSpan(conventions, span, request) });
  registerInstrumentations({ tracerProvider: provider, instrumentations: [new PgInstrumentation({ requireParentSpan: true }), http] });
  return { http: { plugin: () => http.plugin(), sampling: rootSampling }, shutdown: () => provider.shutdown() };
}
