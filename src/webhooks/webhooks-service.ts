import { randomBytes } from 'node:crypto';
import type { ApiKeyScope } from '../api-keys/api-key-scopes.js';
import { SYSTEM_CONTEXT } from '../audit/audit-context.js';
import type { AuditAction, AuditContext, AuditDetails } from '../audit/audit-repository.js';
import type { AuditRecorder } from '../audit/audit-service.js';
import { AppError, ValidationError } from '../errors/errors.js';
import { readScopesOf } from './webhook-scopes.js';
import type { Clock } from '../shared/clock.js';
import { newSigningSecret, type SecretBox } from './security/webhook-secrets.js';
import { RefusedUrlError, type UrlPolicy } from './security/webhook-url-policy.js';
import type { WebhookDelivery, WebhookEndpoint, WebhookEndpointStatus, WebhooksRepository } from './webhooks-repository.js';

/** How long deliveries keep carrying the old secret's signature after a rotation. */
const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

export interface EndpointInput {
  url: string;
  /** Absent or null: every type. */
  eventTypes?: readonly string[] | null;
  description?: string | null;
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
  /** Endpoints one account may have (WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT). */
  maxEndpointsPerAccount: number;
}

/**
 * Who asks: for the audit trail, and, when an API key asks, the key's scopes
 * (an endpoint sends data out: see webhook-scopes.ts). Absent scopes: a
 * portal user or the operator, who may read all of the account's data.
 */
export interface WebhooksCaller {
  context: AuditContext;
  scopes?: readonly ApiKeyScope[];
}

const SYSTEM_CALLER: WebhooksCaller = { context: SYSTEM_CONTEXT };

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

export function createWebhooksService({ webhooksRepository, policy, secretBox, clock, audit, maxEndpointsPerAccount }: WebhooksServiceDependencies) {
  const listeners = new Set<() => void>();

  /** Whether the caller may read every event type (a user, the operator, or a key with every read scope). */
  function readsEverything(caller: WebhooksCaller): boolean {
    return caller.scopes === undefined || readScopesOf(null).every((scope) => caller.scopes?.includes(scope));
  }

  /** A key may send out only what it could read itself. */
  function requireReadScopes(caller: WebhooksCaller, types: readonly string[] | null): void {
    if (caller.scopes === undefined) return;
    const missing = readScopesOf(types).filter((scope) => !caller.scopes?.includes(scope));
    if (missing.length > 0) {
      throw new AppError(
        'insufficient_scope',
        `This API key lacks the scope ${missing.join(' and ')}: a webhook endpoint receives the data of its event types, so creating, changing, enabling or redelivering to one needs the scopes that read them.`,
      );
    }
  }

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

  async function found(accountId: number, id: string): Promise<WebhookEndpoint> {
    const endpoint = await webhooksRepository.findEndpoint(accountId, id);
    if (endpoint === undefined) throw notFound();
    return endpoint;
  }

  return {
    async createEndpoint(accountId: number, input: EndpointInput, caller: WebhooksCaller = SYSTEM_CALLER): Promise<EndpointWithSecret> {
      const eventTypes = eventTypesOf(input.eventTypes);
      requireReadScopes(caller, eventTypes);
      await checkUrl(input.url);
      const secret = newSigningSecret();
      const created = await webhooksRepository.createEndpoint(
        {
          id: newEndpointId(),
          accountId,
          url: input.url,
          eventTypes,
          description: input.description ?? null,
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
      const items = await webhooksRepository.listEndpoints(accountId, after, limit);
      return { items, next: items.length === limit ? items.at(-1)?.id : undefined };
    },

    getEndpoint: found,

    async updateEndpoint(accountId: number, id: string, patch: EndpointPatch, caller: WebhooksCaller = SYSTEM_CALLER): Promise<WebhookEndpoint> {
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
      });
      if (updated === undefined) throw notFound();
      const changed = (['url', 'eventTypes', 'description'] as const).filter((field) => patch[field] !== undefined);
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
      return updated;
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
      return { endpoint, secret };
    },

    async listDeliveries(accountId: number, endpointId: string, before: string | undefined, limit: number): Promise<Page<WebhookDelivery>> {
      await found(accountId, endpointId);
      const items = await webhooksRepository.listDeliveries(accountId, endpointId, before, limit);
      return { items, next: items.length === limit ? items.at(-1)?.id : undefined };
    },

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

    /** Calls `listener` when this process made deliveries due, so an engine here can start at once. */
    onQueued(listener: () => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
