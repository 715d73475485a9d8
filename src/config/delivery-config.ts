import { parseRetrySchedule } from './config-formats.js';
import type { EnvironmentValues } from './config-schema.js';

export interface MessagesConfig {
  /** Where the dispatcher POSTs each queued message; absent: delivery is recording it as sent. May hold a secret: never logged. */
  readonly webhookUrl?: string;
  readonly webhookTimeoutMs: number;
  /** The first retry waits about this long; each further retry doubles it, up to retryMaxMs. */
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
  /** Delivery attempts before a message is given up as `failed`. */
  readonly maxAttempts: number;
  /** How often an idle dispatcher looks for due messages (new messages wake it at once). */
  readonly pollIntervalMs: number;
}

export interface WebhooksConfig {
  readonly allowHttp: boolean;
  /** CIDR ranges (or addresses) endpoints may reach although the SSRF rules refuse them. */
  readonly allowedNetworks: readonly string[];
  readonly timeoutMs: number;
  /** Delay before each retry, in ms; after the last the delivery is given up. */
  readonly retryScheduleMs: readonly number[];
  readonly pollIntervalMs: number;
  /** Endpoints one account may have. */
  readonly maxEndpointsPerAccount: number;
  /** Attempts in flight per process, every endpoint together. */
  readonly maxInFlight: number;
  /** Attempts in flight per process to one endpoint (one while it is failing). */
  readonly maxInFlightPerEndpoint: number;
  /** How long past the attempt timeout a claim holds before another process may retry the delivery. */
  readonly claimMarginMs: number;
  /** Encrypts signing secrets at rest; undefined: a key generated once and kept in the database. Never logged. */
  readonly secretsKey?: string;
}

/** The quickstart messages' delivery from the accepted values. */
export function messagesFrom(values: EnvironmentValues['messages']): MessagesConfig {
  const webhookUrl = values.MESSAGES_WEBHOOK_URL;
  return {
    ...(webhookUrl === undefined ? {} : { webhookUrl }),
    webhookTimeoutMs: values.MESSAGES_WEBHOOK_TIMEOUT_MS,
    retryBaseMs: values.MESSAGES_RETRY_BASE_MS,
    retryMaxMs: values.MESSAGES_RETRY_MAX_MS,
    maxAttempts: values.MESSAGES_MAX_ATTEMPTS,
    pollIntervalMs: values.MESSAGES_POLL_INTERVAL_MS,
  };
}

/** Webhook delivery from the accepted values. */
export function webhooksFrom(values: EnvironmentValues['webhooks']): WebhooksConfig {
  const retryScheduleMs = parseRetrySchedule(values.WEBHOOK_RETRY_SCHEDULE);
  if (retryScheduleMs === undefined) throw new Error('A configuration value accepted by the schema did not convert.');
  return {
    allowHttp: values.WEBHOOK_ALLOW_HTTP === 'true',
    allowedNetworks: values.WEBHOOK_ALLOWED_NETWORKS,
    timeoutMs: values.WEBHOOK_TIMEOUT_MS,
    retryScheduleMs,
    pollIntervalMs: values.WEBHOOK_POLL_INTERVAL_MS,
    maxEndpointsPerAccount: values.WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT,
    maxInFlight: values.WEBHOOK_MAX_IN_FLIGHT,
    maxInFlightPerEndpoint: values.WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT,
    claimMarginMs: values.WEBHOOK_CLAIM_MARGIN_MS,
    ...(values.WEBHOOK_SECRETS_KEY === undefined ? {} : { secretsKey: values.WEBHOOK_SECRETS_KEY }),
  };
}
