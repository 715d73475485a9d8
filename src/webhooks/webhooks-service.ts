import { randomBytes } from 'node:crypto';
import type { AuditAction, AuditDetails } from '../audit/audit-repository.js';
import type { AuditRecorder } from '../audit/audit-service.js';
import type { CursorCodec } from '../api/cursors.js';
import { AppError, ValidationError } from '../errors/errors.js';
import type { Clock } from '../shared/clock.js';
import { checkTexts } from '../shared/user-text.js';
import { newSigningSecret, type SecretBox } from './security/webhook-secrets.js';
import { RefusedUrlError, type UrlPolicy } from '../delivery/url-policy.js';
import type {
  ClaimedWebhookDelivery,
  WebhookDelivery,
  WebhookDeliveryDetail,
  WebhookEndpoint,
  WebhookEndpointStatus,
  WebhooksRepository,
} from './webhooks-repository.js';
import { RATE_LIMIT_MAX } from './webhooks-repository.js';
import type { Sender } from '../delivery/delivery-engine.js';
import { createTestEvents } from './delivery/webhook-test-event.js';
import { createWebhookCursors, deliveriesListing, ENDPOINTS_LISTING, type CursorPage } from './webhook-cursors.js';
import { readsEverything, requireReadScopes, SYSTEM_CALLER, type WebhooksCaller } from './webhook-scopes.js';

/** How long deliveries keep carrying the old secret's signature after a rotation. */
const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

export interface EndpointInput {
  url: string;
  /** Absent or null: every type. */
  eventTypes?: readonly string[] | null;
  description?: string | null;
  /** Deliveries a second at most; absent or null: no limit. */
  rateLimit?: number | null;
}

export interface EndpointPatch extends Partial<EndpointInput> {
  status?: WebhookEndpointStatus;
}

/** An endpoint with its signing secret, returned only when the secret is created or rotated. */
export interface EndpointWithSecret {
  endpoint: WebhookEndpoint;
  secret: string;
}

export interface Page<T> {
  items: T[];
  /** The last item's key when there may be more. */
  next: string | undefined;
}

export interface WebhooksServiceDependencies {
  webhooksRepository: WebhooksRepository;
  policy: UrlPolicy;
  secretBox: SecretBox;
  clock: Clock;
  audit: AuditRecorder;
  /** The API's one cursor codec: the endpoints and deliveries listings' cursors are signed like every other. */
  cursors: CursorCodec;
  /** Endpoints one account may have (WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT). */
  maxEndpointsPerAccount: number;
  /** Sends a test event, as the delivery engine sends every delivery (the same signing, SSRF rules and deadline). */
  sender: Sender<ClaimedWebhookDelivery> & { close(): void };
}

/** What the audit trail says of an endpoint's URL: its origin only (a path or query may hold a token). */
function urlOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
}

function notFound(): AppError {
  return new AppError('webhook_endpoint_not_found', 'No webhook endpoint with this id exists.');
}

/** `we_` and 128 random bits in hex. */
function newEndpointId(): string {
  return `we_${randomBytes(16).toString('hex')}`;
}

export function createWebhooksService({ webhooksRepository, policy, secretBox, clock, audit, cursors, maxEndpointsPerAccount, sender }: WebhooksServiceDependencies) {
  const listeners = new Set<() => void>();
  const { positionOf, cursorAfter } = createWebhookCursors(cursors);
  const testEvents = createTestEvents({ webhooksRepository, sender, clock });

  function recorded(caller: WebhooksCaller, accountId: number, action: AuditAction, endpointId: string | undefined, details: AuditDetails = {}): Promise<void> {
    return audit.recordAfterChange({
      ...caller.context,
      accountId,
      action,
      ...(endpointId === undefined ? {} : { target: { kind: 'webhook_endpoint', id: endpointId } }),
      details,
    });
  }
  function onQueued(): void {
    for (const listener of listeners) listener();
  }

  /** Refuses a URL the SSRF rules refuse, with a 400 naming why. */
  /** The API's schema says the same; this holds for every caller (the CLI, the portal). */
  function checkRateLimit(rateLimit: number | null | undefined): void {
    if (rateLimit === undefined || rateLimit === null) return;
    if (!Number.isInteger(rateLimit) || rateLimit < 1 || rateLimit > RATE_LIMIT_MAX) throw new ValidationError(`rateLimit must be a whole number of deliveries a second, 1 to ${RATE_LIMIT_MAX}.`);
  }

  async function checkUrl(url: string): Promise<void> {
    try {
      await policy.check(url);
    } catch (error) {
      if (error instanceof RefusedUrlError) throw new ValidationError(`url is refused: ${error.message}`);
      throw error;
    }
  }

  function eventTypesOf(types: readonly string[] | null | undefined): string[] | null {
    return types === undefined || types === null ? null : [...new Set(types)];
  }

  /** The endpoint as callers see it: a pause that has ended is no pause. */
  function current(endpoint: WebhookEndpoint): WebhookEndpoint {
    return endpoint.pausedUntil !== null && endpoint.pausedUntil <= clock.now().toISOString() ? { ...endpoint, pausedUntil: null } : endpoint;
  }

  async function found(accountId: number, id: string): Promise<WebhookEndpoint> {
    const endpoint = await webhooksRepository.findEndpoint(accountId, id);
    if (endpoint === undefined) throw notFound();
    return current(endpoint);
  }

  async function listDeliveries(accountId: number, endpointId: string, before: string | undefined, limit: number): Promise<Page<WebhookDelivery>> {
    await found(accountId, endpointId);
    const items = await webhooksRepository.listDeliveries(accountId, endpointId, before, limit);
    return { items, next: items.length === limit ? items.at(-1)?.id : undefined };
  }

  return {
    async createEndpoint(accountId: number, input: EndpointInput, caller: WebhooksCaller = SYSTEM_CALLER): Promise<EndpointWithSecret> {
      const eventTypes = eventTypesOf(input.eventTypes);
      requireReadScopes(caller, eventTypes);
      checkTexts({ url: input.url, description: input.description });
      checkRateLimit(input.rateLimit);
      await checkUrl(input.url);
      const secret = newSigningSecret();
      const created = await webhooksRepository.createEndpoint(
        {
          id: newEndpointId(),
          accountId,
          url: input.url,
          eventTypes,
          description: input.description ?? null,
          rateLimit: input.rateLimit ?? null,
          sealedSecret: await secretBox.seal(secret),
          createdAt: clock.now().toISOString(),
        },
        { maxPerAccount: maxEndpointsPerAccount },
      );
      if (created === 'limit_reached') {
        throw new AppError('webhook_endpoint_limit_reached', `This account has ${maxEndpointsPerAccount} webhook endpoints, the most it may have: delete one first.`);
      }
      if (created === 'duplicate') {
        throw new AppError('webhook_endpoint_exists', 'This account already has an endpoint with this URL and these event types: change that one instead.');
      }
      await recorded(caller, accountId, 'webhook_endpoint_created', created.id, { origin: urlOrigin(created.url), eventTypes: (eventTypes ?? ['*']).join(' ') });
      return { endpoint: created, secret };
    },

    async listEndpoints(accountId: number, after: string | undefined, limit: number): Promise<Page<WebhookEndpoint>> {
      const items = (await webhooksRepository.listEndpoints(accountId, after, limit)).map(current);
      return { items, next: items.length === limit ? items.at(-1)?.id : undefined };
    },

    /** The API's listing: by signed cursor (the portal and the CLI page by id, within the account they already hold). */
    async listEndpointsByCursor(accountId: number, cursor: string | undefined, limit: number): Promise<CursorPage<WebhookEndpoint>> {
      const after = await positionOf(accountId, ENDPOINTS_LISTING, cursor, /^we_[0-9a-f]{32}$/);
      const items = (await webhooksRepository.listEndpoints(accountId, after, limit)).map(current);
      return { items, nextCursor: await cursorAfter(accountId, ENDPOINTS_LISTING, items.length === limit ? items.at(-1)?.id : undefined) };
    },

    async listDeliveriesByCursor(accountId: number, endpointId: string, cursor: string | undefined, limit: number): Promise<CursorPage<WebhookDelivery>> {
      const before = await positionOf(accountId, deliveriesListing(endpointId), cursor, /^[1-9][0-9]{0,18}$/);
      const page = await listDeliveries(accountId, endpointId, before, limit);
      return { items: page.items, nextCursor: await cursorAfter(accountId, deliveriesListing(endpointId), page.next) };
    },

    getEndpoint: found,

    /** Sends a signed webhook.test event to the endpoint now and answers with the attempt (see delivery/webhook-test-event.ts). */
    sendTestEvent: testEvents.send,

    /** One delivery of the account's endpoint, with its payload and every attempt. */
    async getDelivery(accountId: number, endpointId: string, deliveryId: string): Promise<WebhookDeliveryDetail> {
      await found(accountId, endpointId);
      const delivery = await webhooksRepository.findDelivery(accountId, endpointId, deliveryId);
      if (delivery === undefined) throw new AppError('webhook_delivery_not_found', 'No delivery with this id exists for this endpoint.');
      return delivery;
    },

    async updateEndpoint(accountId: number, id: string, patch: EndpointPatch, caller: WebhooksCaller = SYSTEM_CALLER): Promise<WebhookEndpoint> {
      checkTexts({ url: patch.url, description: patch.description });
      checkRateLimit(patch.rateLimit);
      if (patch.url !== undefined) await checkUrl(patch.url);
      // A new URL, new types or enabling it again decides where data goes: the key must be able to read what it will receive.
      const sendsData = patch.url !== undefined || patch.eventTypes !== undefined || patch.status === 'enabled';
      if (sendsData && !readsEverything(caller)) {
        const types = patch.eventTypes === undefined ? (await found(accountId, id)).eventTypes : eventTypesOf(patch.eventTypes);
        requireReadScopes(caller, types);
      }
      const updated = await webhooksRepository.updateEndpoint(accountId, id, {
        ...(patch.url === undefined ? {} : { url: patch.url }),
        ...(patch.eventTypes === undefined ? {} : { eventTypes: eventTypesOf(patch.eventTypes) }),
        ...(patch.description === undefined ? {} : { description: patch.description }),
        ...(patch.status === undefined ? {} : { status: patch.status }),
        ...(patch.rateLimit === undefined ? {} : { rateLimit: patch.rateLimit }),
      });
      if (updated === undefined) throw notFound();
      const changed = (['url', 'eventTypes', 'description', 'rateLimit'] as const).filter((field) => patch[field] !== undefined);
      if (changed.length > 0) {
        await recorded(caller, accountId, 'webhook_endpoint_updated', id, {
          fields: changed.join(' '),
          ...(patch.url === undefined ? {} : { origin: urlOrigin(updated.url) }),
        });
      }
      if (patch.status === 'enabled') await recorded(caller, accountId, 'webhook_endpoint_enabled', id);
      if (patch.status === 'disabled') await recorded(caller, accountId, 'webhook_endpoint_disabled', id);
      // Re-enabling lets held-back deliveries go.
      if (patch.status === 'enabled') onQueued();
      return current(updated);
    },

    async deleteEndpoint(accountId: number, id: string, caller: WebhooksCaller = SYSTEM_CALLER): Promise<void> {
      if (!(await webhooksRepository.deleteEndpoint(accountId, id))) throw notFound();
      await recorded(caller, accountId, 'webhook_endpoint_deleted', id);
    },

    /** A new secret, shown once; the old one keeps signing deliveries for ROTATION_OVERLAP_MS. */
    async rotateSecret(accountId: number, id: string, caller: WebhooksCaller = SYSTEM_CALLER): Promise<EndpointWithSecret> {
      const secret = newSigningSecret();
      const endpoint = await webhooksRepository.rotateSecret(accountId, id, {
        sealedSecret: await secretBox.seal(secret),
        previousUntil: new Date(clock.now().getTime() + ROTATION_OVERLAP_MS).toISOString(),
      });
      if (endpoint === undefined) throw notFound();
      await recorded(caller, accountId, 'webhook_secret_rotated', id);
      return { endpoint: current(endpoint), secret };
    },

    listDeliveries,


    /**
     * Queues the event again (to one endpoint, whatever its types, or to
     * every subscribed one); returns how many deliveries were queued. A key
     * needs the scopes that read every event type, since the event may be of any.
     */
    async redeliver(accountId: number, eventId: string, endpointId: string | undefined, caller: WebhooksCaller = SYSTEM_CALLER): Promise<number> {
      requireReadScopes(caller, null);
      if (endpointId !== undefined) await found(accountId, endpointId);
      const queued = await webhooksRepository.redeliver({ accountId, eventId, ...(endpointId === undefined ? {} : { endpointId }), now: clock.now().toISOString() });
      if (queued === undefined) throw new AppError('event_not_found', 'No event with this id exists.');
      await recorded(caller, accountId, 'webhook_event_redelivered', endpointId, { eventId, queued });
      if (queued > 0) onQueued();
      return queued;
    },

    /** Closes the test events' connections (the container's close). */
    close: testEvents.close,

    /**
     * Queues again, in order, every delivery to the endpoint given up since
     * `since` (an instant): what a store does after fixing its receiver. The
     * key needs the read scopes of what the endpoint receives.
     */
    async recover(accountId: number, endpointId: string, since: string, caller: WebhooksCaller = SYSTEM_CALLER): Promise<number> {
      const endpoint = await found(accountId, endpointId);
      requireReadScopes(caller, endpoint.eventTypes);
      const queued = await webhooksRepository.recover({ accountId, endpointId, since, now: clock.now().toISOString() });
      await recorded(caller, accountId, 'webhook_deliveries_recovered', endpointId, { since, queued });
      if (queued > 0) onQueued();
      return queued;
    },

    /** Calls `listener` when this process made deliveries due, so an engine here can start at once. */
    onQueued(listener: () => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
