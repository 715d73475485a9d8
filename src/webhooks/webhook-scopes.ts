import type { ApiKeyScope } from '../api-keys/api-key-scopes.js';
import { SYSTEM_CONTEXT } from '../audit/audit-context.js';
import type { AuditContext } from '../audit/audit-repository.js';
import { AppError } from '../errors/errors.js';
import { EVENT_TYPES } from '../events/event-types.js';

/**
 * What a key must be able to read to receive an event type: an endpoint is
 * the events feed pushed elsewhere, so every type needs `events:read`, and
 * a type whose data is an order also `orders:read` (what GET
 * /v2/store/orders/{id} asks for the same order). A key with only
 * `webhooks:manage` can still list and inspect its endpoints, but creating,
 * changing, enabling or redelivering to one, which sends data out, needs
 * these too.
 */
function readScopesOf(types: readonly string[] | null): ApiKeyScope[] {
  const receiving = types ?? EVENT_TYPES;
  const needed = new Set<ApiKeyScope>(['events:read']);
  for (const type of receiving) if (type.startsWith('order.')) needed.add('orders:read');
  return [...needed];
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

export const SYSTEM_CALLER: WebhooksCaller = { context: SYSTEM_CONTEXT };

/** Whether the caller may read every event type (a user, the operator, or a key with every read scope). */
export function readsEverything(caller: WebhooksCaller): boolean {
  return caller.scopes === undefined || readScopesOf(null).every((scope) => caller.scopes?.includes(scope));
}

/** A key may send out only what it could read itself. */
export function requireReadScopes(caller: WebhooksCaller, types: readonly string[] | null): void {
  if (caller.scopes === undefined) return;
  const missing = readScopesOf(types).filter((scope) => !caller.scopes?.includes(scope));
  if (missing.length > 0) {
    throw new AppError(
      'insufficient_scope',
      `This API key lacks the scope ${missing.join(' and ')}: a webhook endpoint receives the data of its event types, so creating, changing, enabling or redelivering to one needs the scopes that read them.`,
    );
  }
}
