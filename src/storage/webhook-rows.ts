import type { NewAuditEntry } from '../audit/audit-repository.js';
import type { AttemptRecord, Settlement } from '../delivery/delivery-queue.js';
import type {
  ClaimedWebhookDelivery,
  WebhookDelivery,
  WebhookDeliveryAttempt,
  WebhookDeliveryStatus,
  WebhookEndpoint,
  WebhookEndpointStatus,
} from '../webhooks/webhooks-repository.js';

/** Rows as both adapters select them (timestamps as ISO 8601 text), mapped in one place so both databases answer alike. */

/**
 * The most pending deliveries the engine makes ahead for one endpoint
 * (materializeDeliveries of both adapters): a claim makes deliveries of the
 * events after an endpoint's cursor only up to this many pending, so a
 * backlog (an import of many orders, a slow or failing receiver) is made as
 * it is delivered, never all at once. A hundred is more than an endpoint
 * can have in flight (WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT, 64 by default) and
 * claims follow one another as attempts end. Making a thousand at once spent
 * the engine's share of a busy process in one claim, and the rest it then
 * owed delayed every other endpoint's deliveries (p99 312–399 ms beside a
 * slow endpoint under load, against 116–147 before the cursor;
 * `npm run bench -- --only webhooks`).
 */
export const MATERIALIZED_PER_ENDPOINT = 100;

/**
 * An endpoint's deliveries are made again only once fewer than this many are
 * pending: refills of about a hundred rather than a few rows per claim (each
 * refill reads the window and moves the cursor), and a pending count that
 * stops after this many rows (a claim counts it for every endpoint behind).
 */
export const MATERIALIZE_BELOW_PENDING = 16;

/** An endpoint failing every attempt for this long is disabled. */
export const FAILING_ENDPOINT_DISABLED_AFTER_MS = 5 * 24 * 60 * 60 * 1000;

/** Why the service disabled an endpoint, as stored in disabled_reason and its audit entry. */
export const GONE_REASON = 'The endpoint answered HTTP 410 Gone.';
export const FAILING_REASON = 'Every delivery attempt failed for 5 days.';

/**
 * The audit entry of an endpoint the service itself disabled (HTTP 410, or
 * failing for 5 days), written in the transaction that disables it: the
 * endpoint is never disabled without its entry.
 */
export function endpointDisabledEntry(endpoint: { id: string; accountId: number }, at: string, reason: string): NewAuditEntry {
  return {
    accountId: endpoint.accountId,
    at,
    actor: { kind: 'system' },
    action: 'webhook_endpoint_disabled',
    target: { kind: 'webhook_endpoint', id: endpoint.id },
    details: { reason },
  };
}

export const ENDPOINT_COLUMNS = 'id, account_id, url, event_types, description, status, disabled_reason, rate_limit, paused_until, created_at';

export interface EndpointRow {
  id: string;
  account_id: bigint | number;
  url: string;
  event_types: string | null;
  description: string | null;
  status: string;
  disabled_reason: string | null;
  rate_limit: bigint | number | null;
  paused_until: string | null;
  created_at: string;
}

export function toEndpoint(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    accountId: Number(row.account_id),
    url: row.url,
    eventTypes: row.event_types === null ? null : row.event_types.split(' ').filter((type) => type !== ''),
    description: row.description,
    status: row.status as WebhookEndpointStatus,
    disabledReason: row.disabled_reason,
    rateLimit: row.rate_limit === null ? null : Number(row.rate_limit),
    pausedUntil: row.paused_until,
    createdAt: row.created_at,
  };
}

/** Event types as stored: space-separated, NULL for every type. */
export function storedEventTypes(types: readonly string[] | null): string | null {
  return types === null ? null : types.join(' ');
}

/** Whether a stored endpoint's event types are the same as `types`, in any order (both null: every type). */
export function sameEventTypes(stored: string | null, types: readonly string[] | null): boolean {
  if (stored === null || types === null) return stored === null && types === null;
  const had = new Set(stored.split(' '));
  const wanted = new Set(types);
  return had.size === wanted.size && [...wanted].every((type) => had.has(type));
}

/** How far ahead a claim reserves a rate-limited endpoint's starts (the engine waits for each). */
export const RATE_HORIZON_MS = 1000;

/** A rate-limited endpoint's starts from its next free one on: how many fit within the horizon, and the i-th's time. */
export interface RatePace {
  room: number;
  start(index: number): string;
}

/** The pace of an endpoint allowed `perSecond` starts a second whose next start is free from `nextAt` (null: now). */
export function ratePace(perSecond: number, nextAt: string | null, now: string): RatePace {
  const nowMs = Date.parse(now);
  const first = Math.max(nowMs, nextAt === null ? nowMs : Date.parse(nextAt));
  const gap = 1000 / perSecond;
  const ahead = nowMs + RATE_HORIZON_MS - first;
  return {
    room: ahead < 0 ? 0 : Math.floor(ahead / gap) + 1,
    start: (index) => new Date(first + Math.round(index * gap)).toISOString(),
  };
}

export interface DeliveryRow {
  seq: bigint | number | string;
  event_id: string;
  status: string;
  created_at: string;
  attempts: bigint | number;
  last_attempt_at: string | null;
  last_status_code: bigint | number | null;
  last_error: string | null;
  last_duration_ms: bigint | number | null;
  next_attempt_at: string;
}

export function toDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    id: String(row.seq),
    eventId: row.event_id,
    status: row.status as WebhookDeliveryStatus,
    createdAt: row.created_at,
    attempts: Number(row.attempts),
    lastAttemptAt: row.last_attempt_at,
    statusCode: row.last_status_code === null ? null : Number(row.last_status_code),
    error: row.last_error,
    durationMs: row.last_duration_ms === null ? null : Number(row.last_duration_ms),
    nextAttemptAt: row.status === 'pending' ? row.next_attempt_at : null,
  };
}

export interface ClaimedDeliveryRow {
  seq: bigint | number | string;
  attempts: bigint | number;
  endpoint_id: string;
  event_id: string;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: string | null;
  payload: string;
  /** The earliest start the endpoint's rate limit gave it, or null. */
  not_before?: string | null;
  /** When it was due, before the claim moved its due time to the lease's end. */
  due_at: string;
}

export function toClaimedDelivery(row: ClaimedDeliveryRow): ClaimedWebhookDelivery {
  return {
    id: String(row.seq),
    attempts: Number(row.attempts),
    dueAt: row.due_at,
    endpointId: row.endpoint_id,
    destination: row.endpoint_id,
    eventId: row.event_id,
    url: row.url,
    sealedSecret: row.secret,
    previousSealedSecret: row.previous_secret,
    previousSecretUntil: row.previous_secret_until,
    payload: row.payload,
    ...(row.not_before === undefined || row.not_before === null ? {} : { notBefore: row.not_before }),
  };
}

export interface AttemptRow {
  attempt: bigint | number;
  at: string;
  duration_ms: bigint | number | null;
  status_code: bigint | number | null;
  error: string | null;
  request_headers: string;
  response_headers: string | null;
  response_body: string | null;
}

export function toAttempt(row: AttemptRow): WebhookDeliveryAttempt {
  return {
    attempt: Number(row.attempt),
    at: row.at,
    durationMs: row.duration_ms === null ? null : Number(row.duration_ms),
    statusCode: row.status_code === null ? null : Number(row.status_code),
    error: row.error,
    requestHeaders: JSON.parse(row.request_headers) as Record<string, string>,
    response: row.response_headers === null ? null : { headers: JSON.parse(row.response_headers) as Record<string, string>, body: row.response_body ?? '' },
  };
}

/**
 * An attempt's record as columns (attempt, request headers, response
 * headers, response body: JSON text for headers), or undefined when the
 * settlement carries none (the queue's engine records no exchange).
 */
export function attemptColumns({ attempt, exchange }: Settlement & AttemptRecord): [number, string, string | null, string | null] | undefined {
  if (attempt === undefined || exchange === undefined) return undefined;
  const { response } = exchange;
  return [attempt, JSON.stringify(exchange.requestHeaders), response === undefined ? null : JSON.stringify(response.headers), response?.body ?? null];
}
