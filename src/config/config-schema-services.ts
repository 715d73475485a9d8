import { Type } from 'typebox';
import { isHttpUrl, parsePortalUrl } from './config-formats.js';

/*
 * Sections of the one configuration schema (config-schema.ts, which says how
 * the whole object is read and documented) for what runs beside the API:
 * tracing, the self-service portal and the audit trail. Kept apart only so
 * that neither file outgrows a screenful of sections.
 */

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
    OTEL_SDK_DISABLED: Type.Enum(['true', 'false'], { default: 'false', description: '`true` keeps tracing off whatever else is set' }),
  },
  { title: 'Tracing (OpenTelemetry)' },
);

export const portal = Type.Object(
  {
    PORTAL_PORT: Type.Union([Type.Integer({ minimum: 0, maximum: 65535 }), Type.Literal('off')], {
      default: 3002,
      description: 'The self-service portal\'s port (docs/portal.md), on the same `HOST` (`0` picks a free one); `off` disables the portal',
    }),
    PORTAL_PUBLIC_URL: Type.Optional(
      Type.Refine(
        Type.String({
          description:
            'Where browsers reach the portal (absolute http(s), no path, query or fragment): links, the Origin check and cookies use it; `https` makes the session cookie `Secure` and `__Host-` prefixed. ' +
            'Unset: `http://localhost:<port>` when `HOST` is a loopback address, else `http://<HOST>:<port>`',
        }),
        (url) => parsePortalUrl(url) !== undefined,
        () => 'PORTAL_PUBLIC_URL must be an absolute http(s) URL without path, query or fragment, e.g. https://portal.store.example.com',
      ),
    ),
    PORTAL_SIGNUP: Type.Enum(['open', 'closed'], {
      default: 'open',
      description: '`open`: anyone may create an account at `/sign-up`; `closed`: only with a link from `store-orders users invite`',
    }),
    PORTAL_SESSION_IDLE_MINUTES: Type.Integer({ minimum: 1, maximum: 1440, default: 30, description: 'A portal session unused this long ends' }),
    PORTAL_SESSION_ABSOLUTE_HOURS: Type.Integer({ minimum: 1, maximum: 720, default: 12, description: 'A portal session ends this long after sign-in, however active' }),
    PORTAL_THROTTLE_PER_EMAIL: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 5, description: 'Failed sign-ins one email may take per throttle window, per process' }),
    PORTAL_THROTTLE_PER_ADDRESS: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 30, description: 'Failed sign-ins, sign-ups and password resets one client address may make per throttle window, per process' }),
    PORTAL_THROTTLE_WINDOW_MINUTES: Type.Integer({ minimum: 1, maximum: 1440, default: 15, description: 'The sign-in throttle\'s window' }),
  },
  { title: 'Portal' },
);

export const audit = Type.Object(
  {
    AUDIT_RETENTION_DAYS: Type.Integer({ minimum: 1, maximum: 36_500, default: 90, description: 'How long audit trail entries are kept; older ones are deleted in the background by the server' }),
    AUDIT_PRUNE_INTERVAL_MS: Type.Integer({ minimum: 1000, maximum: 86_400_000, default: 3_600_000, description: 'How often the server deletes audit trail entries past their retention' }),
  },
  { title: 'Audit trail' },
);
