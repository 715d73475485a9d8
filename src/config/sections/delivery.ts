import { Type } from 'typebox';
import { CURSOR_SECRET_MIN_LENGTH, PRINTABLE, isHttpUrl, isWebhookNetwork, parseRetrySchedule } from '../config-formats.js';

/* Configuration sections (config-schema.ts reads and documents them all): what leaves the process: quickstart message deliveries and webhooks. */

export const messages = Type.Object(
  {
    MESSAGES_WEBHOOK_URL: Type.Optional(
      Type.Refine(
        Type.String({ 'x-secret': true, description: '`http(s)://` URL messages are POSTed to (may carry a token: never logged); unset: delivery is recording them as sent' }),
        isHttpUrl,
        () => 'MESSAGES_WEBHOOK_URL must be an absolute http:// or https:// URL',
      ),
    ),
    MESSAGES_WEBHOOK_TIMEOUT_MS: Type.Integer({ minimum: 1, maximum: 600_000, default: 10_000, description: 'How long one delivery attempt may take, all of it: connecting, sending and reading the answer (at most its first 64 KB)' }),
    MESSAGES_RETRY_BASE_MS: Type.Integer({ minimum: 1, maximum: 3_600_000, default: 1000, description: 'The first retry\'s delay; each further retry doubles it' }),
    MESSAGES_RETRY_MAX_MS: Type.Integer({ minimum: 1, maximum: 86_400_000, default: 300_000, description: 'The longest delay between retries (not less than `MESSAGES_RETRY_BASE_MS`)' }),
    MESSAGES_MAX_ATTEMPTS: Type.Integer({ minimum: 1, maximum: 1000, default: 10, description: 'Delivery attempts before a message is `failed`' }),
    MESSAGES_POLL_INTERVAL_MS: Type.Integer({ minimum: 10, maximum: 3_600_000, default: 1000, description: 'How often an idle dispatcher looks for due messages (new messages wake it at once)' }),
  },
  { title: 'Messages' },
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
    WEBHOOK_TIMEOUT_MS: Type.Integer({ minimum: 1, maximum: 600_000, default: 15_000, description: 'How long one webhook delivery attempt may take, all of it: checking and resolving the URL, connecting, sending and reading the answer (at most its first 64 KB)' }),
    WEBHOOK_RETRY_SCHEDULE: Type.Refine(
      Type.Array(Type.String(), {
        default: ['5s', '5m', '30m', '2h', '5h', '10h', '10h'],
        description: 'Delays before each retry of a failed webhook delivery (±20 % jitter), e.g. `5s,5m`; after the last one the delivery is given up',
      }),
      (entries) => parseRetrySchedule(entries) !== undefined,
      () => 'WEBHOOK_RETRY_SCHEDULE must be a comma-separated list of durations such as 500ms, 5s, 5m, 2h or 1d',
    ),
    WEBHOOK_POLL_INTERVAL_MS: Type.Integer({
      minimum: 10,
      maximum: 3_600_000,
      default: 250,
      description:
        "How often an idle webhook engine looks for due deliveries: retries that came due, and changes another process made where it cannot be told (SQLite; PostgreSQL behind a transaction-mode pooler). This process's own changes reach the engine at once, and on PostgreSQL other processes' through LISTEN/NOTIFY",
    }),
    WEBHOOK_MAX_IN_FLIGHT: Type.Integer({
      minimum: 1,
      maximum: 10_000,
      default: 256,
      description: 'Webhook delivery attempts one process has in flight at once, every endpoint together',
    }),
    WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: Type.Integer({
      minimum: 1,
      maximum: 10_000,
      default: 64,
      description:
        'Of those, the most attempts to one endpoint at once. An endpoint starts at 4 and earns more one fast (under 1 s) success at a time; a slow one keeps 2, a failing one 1: a slow endpoint holds a few of the process\'s slots, never the others\'',
    }),
    WEBHOOK_SECRETS_KEY: Type.Optional(
      Type.String({
        minLength: CURSOR_SECRET_MIN_LENGTH,
        pattern: PRINTABLE,
        'x-secret': true,
        description: 'Key that encrypts webhook signing secrets in the database; unset: a key generated once and kept in the database',
        errorMessage: `WEBHOOK_SECRETS_KEY must be at least ${CURSOR_SECRET_MIN_LENGTH} printable characters without spaces, e.g. from: openssl rand -hex 32`,
      }),
    ),
    WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT: Type.Integer({
      minimum: 1,
      maximum: 10_000,
      default: 20,
      description: 'Webhook endpoints one account may have (every one of them receives a copy of each event it subscribes to)',
    }),
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
