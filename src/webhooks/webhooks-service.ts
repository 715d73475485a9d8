import { randomBytes } from 'node:crypto';
import { AppError, ValidationError } from '../errors/errors.js';
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
}

function notFound(): AppError {
  return new AppError('webhook_endpoint_not_found', 'No webhook endpoint with this id exists.');
}

/** `we_` and 128 random bits in hex. */
function newEndpointId(): string {
  return `we_${randomBytes(16).toString('hex')}`;
}

export function createWebhooksService({ webhooksRepository, policy, secretBox, clock }: WebhooksServiceDependencies) {
  const listeners = new Set<() => void>();
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
    async createEndpoint(accountId: number, input: EndpointInput): Promise<EndpointWithSecret> {
      await checkUrl(input.url);
      const secret = newSigningSecret();
      const endpoint = await webhooksRepository.createEndpoint({
        id: newEndpointId(),
        accountId,
        url: input.url,
        eventTypes: eventTypesOf(input.eventTypes),
        description: input.description ?? null,
        sealedSecret: await secretBox.seal(secret),
        createdAt: clock.now().toISOString(),
      });
      return { endpoint, secret };
    },

    async listEndpoints(accountId: number, after: string | undefined, limit: number): Promise<Page<WebhookEndpoint>> {
      const items = await webhooksRepository.listEndpoints(accountId, after, limit);
      return { items, next: items.length === limit ? items.at(-1)?.id : undefined };
    },

    getEndpoint: found,

    async updateEndpoint(accountId: number, id: string, patch: EndpointPatch): Promise<WebhookEndpoint> {
      if (patch.url !== undefined) await checkUrl(patch.url);
      const updated = await webhooksRepository.updateEndpoint(accountId, id, {
        ...(patch.url === undefined ? {} : { url: patch.url }),
        ...(patch.eventTypes === undefined ? {} : { eventTypes: eventTypesOf(patch.eventTypes) }),
        ...(patch.description === undefined ? {} : { description: patch.description }),
        ...(patch.status === undefined ? {} : { status: patch.status }),
      });
      if (updated === undefined) throw notFound();
      // Re-enabling lets held-back deliveries go.
      if (patch.status === 'enabled') onQueued();
      return updated;
    },

    async deleteEndpoint(accountId: number, id: string): Promise<void> {
      if (!(await webhooksRepository.deleteEndpoint(accountId, id))) throw notFound();
    },

    /** A new secret, shown once; the old one keeps signing deliveries for ROTATION_OVERLAP_MS. */
    async rotateSecret(accountId: number, id: string): Promise<EndpointWithSecret> {
      const secret = newSigningSecret();
      const endpoint = await webhooksRepository.rotateSecret(accountId, id, {
        sealedSecret: await secretBox.seal(secret),
        previousUntil: new Date(clock.now().getTime() + ROTATION_OVERLAP_MS).toISOString(),
      });
      if (endpoint === undefined) throw notFound();
      return { endpoint, secret };
    },

    async listDeliveries(accountId: number, endpointId: string, before: string | undefined, limit: number): Promise<Page<WebhookDelivery>> {
      await found(accountId, endpointId);
      const items = await webhooksRepository.listDeliveries(accountId, endpointId, before, limit);
      return { items, next: items.length === limit ? items.at(-1)?.id : undefined };
    },

    /** Queues the event again (to one endpoint, or to every subscribed one); returns how many deliveries were queued. */
    async redeliver(accountId: number, eventId: string, endpointId: string | undefined): Promise<number> {
      if (endpointId !== undefined) await found(accountId, endpointId);
      const queued = await webhooksRepository.redeliver({ accountId, eventId, ...(endpointId === undefined ? {} : { endpointId }), now: clock.now().toISOString() });
      if (queued === undefined) throw new AppError('event_not_found', 'No event with this id exists.');
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
