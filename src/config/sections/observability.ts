import { Type } from 'typebox';
import { isHttpUrl, isValidHost } from '../config-formats.js';

/* Configuration sections (config-schema.ts reads and documents them all): what the process tells its operator: the metrics listener and OpenTelemetry tracing. */

export const metrics = Type.Object(
  {
    METRICS_PORT: Type.Union([Type.Integer({ minimum: 0, maximum: 65535 }), Type.Literal('off')], {
      default: 9464,
      description: 'Port of the Prometheus metrics listener (`GET /metrics`), never served on the public hosts (`0` picks a free one); `off` disables it',
    }),
    METRICS_HOST: Type.Refine(
      Type.String({ default: '127.0.0.1', description: 'Interface the metrics listener binds, an IP address or a host name: keep it private (loopback or an internal network)' }),
      isValidHost,
      (host) => `METRICS_HOST must be an IP address or a host name (got ${JSON.stringify(host)})`,
    ),
  },
  { title: 'Metrics' },
);

// The OpenTelemetry SDK's own variables (its environment specification), read here because they decide whether tracing runs at all.
export const tracing = Type.Object(
  {
    OTEL_EXPORTER_OTLP_ENDPOINT: Type.Optional(
      Type.Refine(
        Type.String({ 'x-secret': true, description: 'OTLP/HTTP collector base URL (e.g. `http://127.0.0.1:4318`; spans go to `<url>/v1/traces`); setting it turns tracing on' }),
        isHttpUrl,
        () => 'OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL',
      ),
    ),
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: Type.Optional(
      Type.Refine(
        Type.String({ 'x-secret': true, description: 'The full URL spans are POSTed to, used as is (wins over `OTEL_EXPORTER_OTLP_ENDPOINT`); setting it turns tracing on' }),
        isHttpUrl,
        () => 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT must be an http:// or https:// URL',
      ),
    ),
    OTEL_TRACES_EXPORTER: Type.Optional(
      Type.Enum(['otlp', 'none'], { description: '`otlp` turns tracing on (to `http://localhost:4318` unless an endpoint is set), `none` keeps it off whatever else is set; unset: on only if an endpoint is set' }),
    ),
    OTEL_EXPORTER_OTLP_PROTOCOL: Type.Optional(Type.Enum(['http/json'], { description: 'Spans are sent as OTLP over HTTP with JSON bodies (`http/json`), the one protocol supported' })),
    OTEL_SERVICE_NAME: Type.String({ default: 'store-orders', minLength: 1, description: 'The `service.name` of every span' }),
    OTEL_TRACES_SAMPLER: Type.Enum(['parentbased_traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'traceidratio', 'always_on', 'always_off'], {
      default: 'parentbased_traceidratio',
      description:
        'Which requests are traced (the specification\'s samplers): by default a request that carries a `traceparent` follows its caller\'s choice, and `OTEL_TRACES_SAMPLER_ARG` of the others start a trace; `parentbased_always_on` traces every request (the SDK\'s own default)',
    }),
    OTEL_TRACES_SAMPLER_ARG: Type.Number({
      minimum: 0,
      maximum: 1,
      default: 0.1,
      description: 'The share of new traces the `traceidratio` samplers keep (default one in ten, as Spring Boot does; the specification\'s own default is 1)',
    }),
    OTEL_SDK_DISABLED: Type.Enum(['true', 'false'], { default: 'false', description: '`true` keeps tracing off whatever else is set' }),
  },
  { title: 'Tracing (OpenTelemetry)' },
);
