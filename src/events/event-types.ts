/**
 * The closed list of event types (issue 18): what changed, named as
 * `<subject>.<past tense>`. Adding one is a change to this list, the
 * documents (docs/events.md, the OpenAPI `webhooks` map) and its producers.
 */
export const EVENT_TYPES = ['order.created', 'order.shipped', 'order.cancelled', 'message.sent', 'message.failed'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const ORDER_EVENT_TYPES = ['order.created', 'order.shipped', 'order.cancelled'] as const satisfies readonly EventType[];
export type OrderEventType = (typeof ORDER_EVENT_TYPES)[number];

export const MESSAGE_EVENT_TYPES = ['message.sent', 'message.failed'] as const satisfies readonly EventType[];
export type MessageEventType = (typeof MESSAGE_EVENT_TYPES)[number];

/** What each type reports, as documented (docs/events.md, the OpenAPI document). */
export const EVENT_TYPE_DESCRIPTIONS: Readonly<Record<EventType, string>> = {
  'order.created': 'An order was created (by the CLI, an import or the portal); data.order is the new order.',
  'order.shipped': 'A pending order was shipped; data.order is the order right after the change.',
  'order.cancelled': 'A pending order was cancelled (v1 or v2 API, or the portal); data.order is the order right after the change.',
  'message.sent': 'A quickstart message was delivered; data.message is the message, status sent.',
  'message.failed': 'A quickstart message gave up after its last attempt; data.message is the message, status failed.',
};

/**
 * The event a store sends itself to check an endpoint (POST
 * /v2/webhook-endpoints/{id}/test): in the catalogue (docs/events.md, the
 * OpenAPI `webhooks` map) but never in the feed, never stored, never
 * subscribed to: it goes to the one endpoint asked for, once.
 */
export const TEST_EVENT_TYPE = 'webhook.test';
export const TEST_EVENT_DESCRIPTION = 'A test sent on request to one endpoint (POST /v2/webhook-endpoints/{id}/test); data.endpoint.id names it. Never in the events feed.';
