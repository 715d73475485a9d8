import type { ApiKeyScope } from '../api-keys/api-key-scopes.js';
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
export function readScopesOf(types: readonly string[] | null): ApiKeyScope[] {
  const receiving = types ?? EVENT_TYPES;
  const needed = new Set<ApiKeyScope>(['events:read']);
  for (const type of receiving) if (type.startsWith('order.')) needed.add('orders:read');
  return [...needed];
}
