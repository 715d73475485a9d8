import type { ClaimedItem, DeliveryQueue } from '../delivery/delivery-queue.js';

export const WEBHOOK_ENDPOINT_STATUSES = ['enabled', 'disabled'] as const;
/** The highest rate limit an endpoint may set, in deliveries a second (the API's schema and the service's check). */
export const RATE_LIMIT_MAX = 10_000;
export type WebhookEndpointStatus = (typeof WEBHOOK_ENDPOINT_STATUSES)[number];

export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

/** A webhook endpoint as stored, minus its secrets. Timestamps are ISO 8601 UTC with milliseconds. */
export interface WebhookEndpoint {
  id: string;
  accountId: number;
  url: string;
  /** The event types it receives; null: every type. */
  eventTypes: string[] | null;
  description: string | null;
  status: WebhookEndpointStatus;
  /** Why it was disabled when the service disabled it (410, failing for days). */
  disabledReason: string | null;
  /** Deliveries per second it may be sent at most (every process together), or null for no limit. */
  rateLimit: number | null;
  /** Until when its receiver asked (429 or 503 with Retry-After) not to be called, or null. May be past. */
  pausedUntil: string | null;
  createdAt: string;
}

export interface NewWebhookEndpoint {
  id: string;
  accountId: number;
  url: string;
  eventTypes: string[] | null;
  description: string | null;
  rateLimit: number | null;
  /** The signing secret, sealed (webhook-secrets.ts): never stored in clear. */
  sealedSecret: string;
  createdAt: string;
}

export interface WebhookEndpointChanges {
  url?: string;
  eventTypes?: string[] | null;
  description?: string | null;
  status?: WebhookEndpointStatus;
  rateLimit?: number | null;
}

/** One delivery of one event to one endpoint, with its latest attempt. */
export interface WebhookDelivery {
  id: string;
  eventId: string;
  status: WebhookDeliveryStatus;
  createdAt: string;
  attempts: number;
  lastAttemptAt: string | null;
  statusCode: number | null;
  error: string | null;
  durationMs: number | null;
  /** When the next attempt is due; null once succeeded or given up. */
  nextAttemptAt: string | null;
}

/** A delivery of one of an account's events, with the endpoint it goes to (an order's history). */
export interface EventDelivery extends WebhookDelivery {
  endpointId: string;
  endpointUrl: string;
}

/** One attempt of a delivery: what was sent and what came back, or why nothing did. */
export interface WebhookDeliveryAttempt {
  attempt: number;
  /** When it ended. */
  at: string;
  durationMs: number | null;
  statusCode: number | null;
  error: string | null;
  /** The request's headers as sent, the signature among them. */
  requestHeaders: Record<string, string>;
  /** The answer's headers and the first 4 KB of its body; null when none came. */
  response: { headers: Record<string, string>; body: string } | null;
}

/** A delivery with what it sends (the Event JSON) and every recorded attempt, oldest first. */
export interface WebhookDeliveryDetail extends WebhookDelivery {
  payload: string;
  attemptLog: WebhookDeliveryAttempt[];
}

/** A delivery an engine holds: everything it needs to sign and send it. */
export interface ClaimedWebhookDelivery extends ClaimedItem {
  endpointId: string;
  eventId: string;
  url: string;
  sealedSecret: string;
  /** The secret before the last rotation, while deliveries still carry its signature too. */
  previousSealedSecret: string | null;
  previousSecretUntil: string | null;
  /** The Event record's JSON text, sent as is. */
  payload: string;
}

/** Storage of webhook endpoints and their deliveries (the delivery engine's queue). Adapters live in src/storage/<database>/. */
export interface WebhooksRepository extends DeliveryQueue<ClaimedWebhookDelivery> {
  /**
   * Creates the endpoint unless the account already has `maxPerAccount`
   * endpoints ('limit_reached') or one with the same URL and event types
   * ('duplicate'): checked and written atomically (concurrent creates of one
   * account are serialised). Throws NotFoundError('account_not_found') for an
   * unknown account.
   */
  createEndpoint(endpoint: NewWebhookEndpoint, limits: { maxPerAccount: number }): Promise<WebhookEndpoint | 'limit_reached' | 'duplicate'>;
  /** The account's endpoints by id, after `afterId`, at most `limit`. */
  /** Where and how the account's endpoint is sent to (its URL and sealed secrets), for a test event; undefined when there is none. */
  findEndpointTarget(accountId: number, id: string): Promise<Pick<ClaimedWebhookDelivery, 'url' | 'sealedSecret' | 'previousSealedSecret' | 'previousSecretUntil'> | undefined>;
  /** One delivery of the account's endpoint, with its payload and attempts; undefined when there is none. */
  findDelivery(accountId: number, endpointId: string, deliveryId: string): Promise<WebhookDeliveryDetail | undefined>;
  listEndpoints(accountId: number, afterId: string | undefined, limit: number): Promise<WebhookEndpoint[]>;
  findEndpoint(accountId: number, id: string): Promise<WebhookEndpoint | undefined>;
  /** Applies the changes; enabling clears the disabled reason and the failure streak. Undefined when the account has no such endpoint. */
  updateEndpoint(accountId: number, id: string, changes: WebhookEndpointChanges): Promise<WebhookEndpoint | undefined>;
  /** Deletes the endpoint and its deliveries. Returns whether it existed. */
  deleteEndpoint(accountId: number, id: string): Promise<boolean>;
  /** The current secret becomes the previous one (signing too until `previousUntil`) and `sealedSecret` the current one. */
  rotateSecret(accountId: number, id: string, rotation: { sealedSecret: string; previousUntil: string }): Promise<WebhookEndpoint | undefined>;
  /**
   * The deliveries of the account's events `eventIds` to any of its
   * endpoints, oldest first (by id), at most `limit`; another account's
   * event has none here.
   */
  listEventDeliveries(accountId: number, eventIds: readonly string[], limit: number): Promise<EventDelivery[]>;
  /** The endpoint's deliveries, newest first, older than `beforeId`, at most `limit`. */
  listDeliveries(accountId: number, endpointId: string, beforeId: string | undefined, limit: number): Promise<WebhookDelivery[]>;
  /**
   * Queues the account's event again: to `endpointId` (whatever it subscribes
   * to), or to every enabled endpoint subscribed to its type. Returns how many
   * deliveries were queued, or undefined when the account has no such event.
   */
  redeliver(request: { accountId: number; eventId: string; endpointId?: string; now: string }): Promise<number | undefined>;
  /**
   * Queues again, in their order, the events whose delivery to the account's
   * endpoint was given up (`failed`) with a last attempt at or after `since`:
   * a new delivery each, due `now`. Returns how many were queued.
   */
  recover(request: { accountId: number; endpointId: string; since: string; now: string }): Promise<number>;
  /**
   * Makes the deliveries of the events written since: a change's
   * transaction writes its events only, and each enabled endpoint keeps a
   * cursor over its account's events (the position up to which its
   * deliveries exist). For each one behind, a delivery per later event it
   * subscribes to, in position order, at most MATERIALIZED_PER_ENDPOINT
   * events a call, the cursor moved on in the same commit, atomically:
   * concurrent callers (engines of several processes) never make one
   * event's delivery to one endpoint twice. claimDue does this first; a
   * caller that reads deliveries without an engine calls it. Returns how
   * many deliveries were made.
   */
  materializeDeliveries(): Promise<number>;
}
