import { Type, type Static } from 'typebox';
import {
  CURSOR_SECRET_MIN_LENGTH,
  PRINTABLE,
  isHttpUrl,
  isTrustedProxyEntry,
  isValidHost,
  parseBaseUrl,
  parseDatabaseUrl,
  parseInstant,
  parseVersionedBaseUrl,
} from './config-formats.js';
import { audit, portal, tracing, webhooks } from './config-schema-services.js';

/**
 * Every environment variable the program reads, defined once: the section
 * (the object it sits in, titled), its name (the property), its type and
 * bounds, its default and a one-line description (Markdown: the docs table
 * shows it as is, --help without the backticks). Parsing (env-reader.ts), the
 * defaults, `store-orders --help` and the configuration table of docs/configuration.md
 * (config-docs.ts, `npm run docs:config`) all come from this object.
 *
 * Conventions the reader relies on: a variable without `default` is optional
 * (Type.Optional); `errorMessage` replaces the generated problem sentence; a
 * Refine's message is the problem when the refinement fails; `x-secret`
 * values are never quoted in a problem. Enumerated words are accepted in any
 * case; lists are comma-separated.
 */


const DATABASE_POOL_SIZE_MAX = 1000;

const server = Type.Object(
  {
    PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000, description: 'TCP port of the store host (`0` picks a free one)' }),
    HOST: Type.Refine(
      Type.String({ default: '127.0.0.1', description: 'Interface to listen on, an IP address or a host name (`0.0.0.0` for all)' }),
      isValidHost,
      (host) => `HOST must be an IP address or a host name (got ${JSON.stringify(host)})`,
    ),
    LOG_LEVEL: Type.Enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { default: 'info', description: 'Least severe level written (pino JSON lines on stdout), any case' }),
    SHUTDOWN_GRACE_MS: Type.Integer({
      minimum: 0,
      maximum: 600_000,
      default: 10_000,
      description: 'How long shutdown waits for in-flight requests before exiting 1',
      errorMessage: 'SHUTDOWN_GRACE_MS must be an integer number of milliseconds from 0 to 600000',
    }),
  },
  { title: 'Server' },
);

const database = Type.Object(
  {
    DATABASE_URL: Type.Refine(
      Type.String({
        default: 'sqlite:./data/store.db',
        'x-secret': true,
        description:
          '`sqlite:<path>` (relative to the working directory; the folder is created) or `sqlite:///<absolute path>`; or ' +
          '`postgres://user:password@host:port/database` (also `postgresql://`, any URL node-postgres accepts, e.g. `?sslmode=require`), never logged or echoed in errors',
      }),
      (url) => parseDatabaseUrl(url).kind !== 'invalid',
      (url) => {
        const parsed = parseDatabaseUrl(url);
        return parsed.kind === 'invalid' ? parsed.problem : '';
      },
    ),
    DATABASE_POOL_SIZE: Type.Integer({ minimum: 1, maximum: DATABASE_POOL_SIZE_MAX, default: 10, description: 'PostgreSQL connections per process' }),
    SQLITE_SYNCHRONOUS: Type.Enum(['full', 'normal'], {
      default: 'full',
      description:
        '`full`: a 204 survives power loss; `normal`: several times faster commits, but the last acknowledged cancels can be lost on power loss (see DEPLOYMENT.md for the measured figure)',
    }),
  },
  { title: 'Database' },
);

const api = Type.Object(
  {
    STORE_ENVIRONMENT: Type.Enum(['production', 'staging'], {
      default: 'production',
      description: 'Which deployment this is: decides the API key prefix it issues and accepts (`so_prod_` or `so_stg_`)',
    }),
    CURSOR_SECRET: Type.Optional(
      Type.String({
        minLength: CURSOR_SECRET_MIN_LENGTH,
        pattern: PRINTABLE,
        'x-secret': true,
        description: 'Key that signs v2 listing cursors (e.g. `openssl rand -hex 32`); unset: a key generated once and kept in the database',
        errorMessage: `CURSOR_SECRET must be at least ${CURSOR_SECRET_MIN_LENGTH} printable characters without spaces, e.g. from: openssl rand -hex 32`,
      }),
    ),
    CURSOR_SECRET_PREVIOUS: Type.Array(Type.String({ minLength: CURSOR_SECRET_MIN_LENGTH, pattern: PRINTABLE }), {
      default: [],
      'x-secret': true,
      description: 'Earlier cursor keys still accepted while cursors signed with them circulate (needs `CURSOR_SECRET`)',
      errorMessage: `CURSOR_SECRET_PREVIOUS must be a comma-separated list of secrets of at least ${CURSOR_SECRET_MIN_LENGTH} printable characters`,
    }),
    PUBLIC_BASE_URL: Type.Optional(
      Type.Refine(
        Type.String({
          description:
            'The production server of the v1 OpenAPI document (v2 uses the same URL ending in `/v2`): an absolute http(s) URL whose path ends in `/v1`, no query or fragment; a trailing `/` is dropped. Unset: the address the server listens on, so that the docs page\'s "Try it out" calls this server',
        }),
        (url) => parseVersionedBaseUrl(url) !== undefined,
        () => 'PUBLIC_BASE_URL must be an absolute http(s) URL ending in /v1, without query or fragment, e.g. https://store.example.com/v1',
      ),
    ),
    STAGING_BASE_URL: Type.Optional(
      Type.Refine(
        Type.String({ description: 'The staging server of both OpenAPI documents (same rules as `PUBLIC_BASE_URL`); unset: no staging server is listed' }),
        (url) => parseVersionedBaseUrl(url) !== undefined,
        () => 'STAGING_BASE_URL must be an absolute http(s) URL ending in /v1, without query or fragment, e.g. https://staging.store.example.com/v1',
      ),
    ),
    PETS_DEPRECATION_DATE: Type.Refine(
      Type.String({
        default: '2026-07-01T00:00:00Z',
        description: 'When the pet lookup was deprecated: an ISO 8601 date (`2026-07-01`, midnight UTC) or a date-time with a zone',
      }),
      (text) => parseInstant(text) !== undefined,
      () => 'PETS_DEPRECATION_DATE must be an ISO 8601 date (2026-07-01) or date-time with a zone (2026-07-01T00:00:00Z)',
    ),
    PETS_SUNSET_DATE: Type.Refine(
      Type.String({
        default: '2027-07-01T00:00:00Z',
        description: 'When the pet lookup stops answering (then 410); same format, not earlier than `PETS_DEPRECATION_DATE`',
      }),
      (text) => parseInstant(text) !== undefined,
      () => 'PETS_SUNSET_DATE must be an ISO 8601 date (2027-07-01) or date-time with a zone (2027-07-01T00:00:00Z)',
    ),
    EVENTS_RETENTION_DAYS: Type.Integer({ minimum: 1, maximum: 3650, default: 30, description: 'How long events (`GET /v2/events`) are kept; older ones are pruned in the background' }),
    EVENTS_PRUNE_INTERVAL_MS: Type.Integer({ minimum: 10, maximum: 86_400_000, default: 3_600_000, description: 'How often the server prunes events older than `EVENTS_RETENTION_DAYS`' }),
  },
  { title: 'API' },
);

const quickstart = Type.Object(
  {
    QUICKSTART_PORT: Type.Union([Type.Integer({ minimum: 0, maximum: 65535 }), Type.Literal('off')], {
      default: 3001,
      description: 'The quickstart host\'s port, on the same `HOST` (`0` picks a free one); `off` disables the host',
    }),
    QUICKSTART_PUBLIC_URL: Type.Refine(
      Type.String({
        default: 'https://quickstart.store.example.com',
        description: 'Where clients reach the quickstart host: the `servers` URL of its OpenAPI document (absolute http(s), no query or fragment); read only when the host is on',
      }),
      (url) => parseBaseUrl(url) !== undefined,
      () => 'QUICKSTART_PUBLIC_URL must be an absolute http(s) URL without query or fragment, e.g. https://quickstart.store.example.com',
    ),
  },
  { title: 'Quickstart host' },
);

const metrics = Type.Object(
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

const messages = Type.Object(
  {
    MESSAGES_WEBHOOK_URL: Type.Optional(
      Type.Refine(
        Type.String({ 'x-secret': true, description: '`http(s)://` URL messages are POSTed to (may carry a token: never logged); unset: delivery is recording them as sent' }),
        isHttpUrl,
        () => 'MESSAGES_WEBHOOK_URL must be an absolute http:// or https:// URL',
      ),
    ),
    MESSAGES_WEBHOOK_TIMEOUT_MS: Type.Integer({ minimum: 1, maximum: 600_000, default: 10_000, description: 'How long one delivery attempt may take' }),
    MESSAGES_RETRY_BASE_MS: Type.Integer({ minimum: 1, maximum: 3_600_000, default: 1000, description: 'The first retry\'s delay; each further retry doubles it' }),
    MESSAGES_RETRY_MAX_MS: Type.Integer({ minimum: 1, maximum: 86_400_000, default: 300_000, description: 'The longest delay between retries (not less than `MESSAGES_RETRY_BASE_MS`)' }),
    MESSAGES_MAX_ATTEMPTS: Type.Integer({ minimum: 1, maximum: 1000, default: 10, description: 'Delivery attempts before a message is `failed`' }),
    MESSAGES_POLL_INTERVAL_MS: Type.Integer({ minimum: 10, maximum: 3_600_000, default: 1000, description: 'How often an idle dispatcher looks for due messages (new messages wake it at once)' }),
  },
  { title: 'Messages' },
);

const limits = Type.Object(
  {
    RATE_LIMIT_REQUESTS: Type.Integer({
      minimum: 0,
      maximum: 1_000_000_000,
      default: 100,
      description: 'Requests one API key (or one client address, unauthenticated) may make per window, per process; `0` turns rate limiting off',
    }),
    RATE_LIMIT_WINDOW_SECONDS: Type.Integer({ minimum: 1, maximum: 86_400, default: 60, description: 'The rate-limit window' }),
    TRUST_PROXY: Type.Refine(
      Type.Array(Type.String(), {
        default: [],
        description: 'Proxies whose `X-Forwarded-For` is believed: addresses, CIDR ranges, `loopback`, `linklocal` or `uniquelocal`; empty: the header is ignored',
      }),
      (entries) => entries.every(isTrustedProxyEntry),
      (entries) =>
        `TRUST_PROXY must be a comma-separated list of proxy addresses or CIDR ranges (got ${JSON.stringify(entries.find((entry) => !isTrustedProxyEntry(entry)))})`,
    ),
    KEY_USAGE_FLUSH_MS: Type.Integer({ minimum: 100, maximum: 3_600_000, default: 60_000, description: 'How often the last-used times of API keys are written to the database (and at shutdown)' }),
    HEADERS_TIMEOUT_MS: Type.Integer({
      minimum: 100,
      maximum: 600_000,
      default: 5_000,
      description: 'Time to send the request headers; a client dribbling them (slow loris) gets `408 request_timeout` and is disconnected',
    }),
    REQUEST_TIMEOUT_MS: Type.Integer({
      minimum: 100,
      maximum: 3_600_000,
      default: 15_000,
      description: 'Time to send the whole request, body included (`408`); not less than `HEADERS_TIMEOUT_MS`',
    }),
    KEEP_ALIVE_TIMEOUT_MS: Type.Integer({
      minimum: 1,
      maximum: 3_600_000,
      default: 72_000,
      description: 'How long an idle keep-alive connection stays open (above typical load-balancer idle timeouts)',
    }),
    MAX_CONNECTIONS: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1024, description: 'Connections per process; further ones are closed on accept' }),
    MAX_CONNECTIONS_PER_ADDRESS: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 1_000_000,
        description:
          'Connections one client address may hold at once, less than `MAX_CONNECTIONS`; a further one gets `503 overloaded` with `Retry-After` and is closed. ' +
          'Unset: an eighth of `MAX_CONNECTIONS` (128 by default); `0`: no bound. Proxies listed in `TRUST_PROXY` are not bounded',
      }),
    ),
    LOAD_SHED_MAX_EVENT_LOOP_DELAY_MS: Type.Integer({
      minimum: 0,
      maximum: 600_000,
      default: 1000,
      description: 'Mean event-loop delay above which requests get `503 overloaded` with `Retry-After: 5` (`0`: off)',
    }),
    LOAD_SHED_MAX_EVENT_LOOP_UTILIZATION: Type.Number({
      minimum: 0,
      maximum: 1,
      default: 0,
      description: 'Event-loop utilisation per second above which the same happens (`0`: off, the default: a busy but healthy process runs near 1)',
    }),
    LOAD_SHED_MAX_HEAP_MB: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0, description: 'Heap use above which the same happens (`0`: off)' }),
  },
  { title: 'Limits' },
);

/** The whole environment: one object per section, one property per variable, in the order problems are reported. */
export const CONFIG_SCHEMA = Type.Object({ server, database, api, quickstart, metrics, messages, limits, portal, audit, tracing, webhooks });

/** The environment as read: every value typed and within its bounds (or its default, when it was refused). */
export type EnvironmentValues = Static<typeof CONFIG_SCHEMA>;
