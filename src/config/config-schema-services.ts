import { Type } from 'typebox';
import { CURSOR_SECRET_MIN_LENGTH, isHttpUrl, isWebhookNetwork, parsePortalUrl, parseRetrySchedule, PRINTABLE } from './config-formats.js';

/*
 * Sections of the one configuration schema (config-schema.ts, which says how
 * the whole object is read and documented) for what runs beside the API:
 * tracing, the self-service portal, the audit trail and webhooks. Kept apart only so
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

export const webhooks = Type.Object(
  {
    WEBHOOK_ALLOW_HTTP: Type.Union([Type.Literal('false'), Type.Literal('true')], {
      default: 'false',
      description: 'Whether webhook endpoints may use plain `http://` URLs (`https://` only by default)',
    }),
    WEBHOOK_ALLOWED_NETWORKS: Type.Refine(
      Type.Array(Type.String(), {
        default: [],
        description: 'CIDR ranges webhook endpoints may reach although they are loopback, private, link-local or otherwise refused, e.g. `10.1.0.0/16`',
      }),
      (entries) => entries.every(isWebhookNetwork),
      (entries) => `WEBHOOK_ALLOWED_NETWORKS must be a comma-separated list of CIDR ranges (got ${JSON.stringify(entries.find((entry) => !isWebhookNetwork(entry)))})`,
    ),
    WEBHOOK_TIMEOUT_MS: Type.Integer({ minimum: 1, maximum: 600_000, default: 15_000, description: 'How long one webhook delivery attempt may take' }),
    WEBHOOK_RETRY_SCHEDULE: Type.Refine(
      Type.Array(Type.String(), {
        default: ['5s', '5m', '30m', '2h', '5h', '10h', '10h'],
        description: 'Delays before each retry of a failed webhook delivery (±20 % jitter), e.g. `5s,5m`; after the last one the delivery is given up',
      }),
      (entries) => parseRetrySchedule(entries) !== undefined,
      () => 'WEBHOOK_RETRY_SCHEDULE must be a comma-separated list of durations such as 500ms, 5s, 5m, 2h or 1d',
    ),
    WEBHOOK_POLL_INTERVAL_MS: Type.Integer({ minimum: 10, maximum: 3_600_000, default: 1000, description: 'How often an idle webhook engine looks for due deliveries (new events wake it at once)' }),
    WEBHOOK_SECRETS_KEY: Type.Optional(
      Type.String({
        minLength: CURSOR_SECRET_MIN_LENGTH,
        pattern: PRINTABLE,
        'x-secret': true,
        description: 'Key that encrypts webhook signing secrets in the database; unset: a key generated once and kept in the database',
        errorMessage: `WEBHOOK_SECRETS_KEY must be at least ${CURSOR_SECRET_MIN_LENGTH} printable characters without spaces, e.g. from: openssl rand -hex 32`,
      }),
    ),
    WEBHOOK_CLAIM_MARGIN_MS: Type.Integer({
      minimum: 1000,
      maximum: 3_600_000,
      default: 60_000,
      description:
        "How long past `WEBHOOK_TIMEOUT_MS` a process's claim on a delivery holds: the deliveries of a process that died mid-delivery are retried by another after that (keep it above clock skew between hosts and event-loop stalls)",
    }),
  },
  { title: 'Webhooks' },
);
