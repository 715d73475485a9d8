import { Type } from 'typebox';
import { commonErrorResponses, errorResponse } from '../api/http/error-responses.js';
import {
  DELIVERY_DETAIL_EXAMPLE,
  DELIVERY_EXAMPLE,
  ENDPOINT_ID_EXAMPLE,
  EVENT_ID_EXAMPLE,
  WebhookDeliveryAttemptSchema,
  WebhookDeliveryDetailSchema,
  WebhookDeliverySchema,
} from './webhook-record-schemas.js';
import { BETA, BODY_400, CURSOR_400, EndpointIdParamsSchema, ID_400, NextCursorSchema, NOT_FOUND, PageQuerySchema, SCOPE, TOO_LARGE, WEBHOOKS_LIMIT_MAX } from './webhooks-schemas.js';

/* The deliveries' operations (the endpoints' are in webhooks-schemas.ts): the log, one delivery's attempts, a test event, redelivery, recovery. */

export const listDeliveriesSchema = {
  operationId: 'listWebhookDeliveries',
  tags: ['webhooks'],
  ...BETA,
  summary: "List an endpoint's deliveries (beta)",
  description: 'The deliveries to the endpoint, newest first, each with its latest attempt: time, HTTP status or error, duration, and the next retry.',
  params: EndpointIdParamsSchema,
  querystring: PageQuerySchema,
  response: {
    200: Type.Object(
      { data: Type.Array(WebhookDeliverySchema, { maxItems: WEBHOOKS_LIMIT_MAX, description: 'The deliveries of this page, newest first.' }), nextCursor: NextCursorSchema },
      { title: 'WebhookDeliveriesPage', additionalProperties: false, description: 'One page of deliveries.', examples: [{ data: [DELIVERY_EXAMPLE], nextCursor: null }] },
    ),
    ...commonErrorResponses(SCOPE),
    400: CURSOR_400,
    404: NOT_FOUND,
  },
} as const;

const DeliveryParamsSchema = Type.Object({
  endpointId: EndpointIdParamsSchema.properties.endpointId,
  deliveryId: Type.String({ pattern: '^[1-9][0-9]{0,18}$', maxLength: 19, description: 'The delivery id (decimal), as the deliveries listing gives it.', examples: ['42'] }),
});

export const getDeliverySchema = {
  operationId: 'getWebhookDelivery',
  tags: ['webhooks'],
  ...BETA,
  summary: 'Get a delivery with every attempt (beta)',
  description:
    "One delivery and each of its attempts, oldest first: when it ended, how long it took, the request's headers as sent (the signature among them; the body is the event, at GET /v2/events/{eventId}), " +
    "and the endpoint's answer (status, headers, the first 4 KB of the body), or the connection error in words.",
  params: DeliveryParamsSchema,
  response: {
    200: { ...WebhookDeliveryDetailSchema, examples: [DELIVERY_DETAIL_EXAMPLE] },
    ...commonErrorResponses(SCOPE),
    400: errorResponse('The endpointId or deliveryId is malformed (validation_failed).', { code: 'validation_failed', message: 'Path parameter deliveryId is not valid.' }),
    404: errorResponse("No such endpoint, or no such delivery of it, for this account (webhook_endpoint_not_found, webhook_delivery_not_found).", {
      code: 'webhook_delivery_not_found',
      message: 'No delivery with this id exists for this endpoint.',
    }),
  },
} as const;

export const sendTestEventSchema = {
  operationId: 'sendWebhookTestEvent',
  tags: ['webhooks'],
  ...BETA,
  summary: 'Send a test event (beta)',
  description:
    'Sends one signed `webhook.test` event to the endpoint now, enabled or not, exactly as deliveries are sent (signature, SSRF rules, `WEBHOOK_TIMEOUT_MS`), and answers with the attempt. ' +
    'Nothing is stored or queued, and the event is never in the events feed. A refused, failed or timed-out attempt is an answer (200, `delivered: false`), not an error.',
  params: EndpointIdParamsSchema,
  response: {
    200: Type.Object(
      {
        eventId: Type.String({ maxLength: 40, description: 'The test event\'s id (its webhook-id header).' }),
        delivered: Type.Boolean({ description: 'Whether the endpoint answered 2xx.' }),
        attempt: WebhookDeliveryAttemptSchema,
      },
      {
        title: 'WebhookTestResult',
        additionalProperties: false,
        examples: [{ eventId: DELIVERY_DETAIL_EXAMPLE.eventId, delivered: false, attempt: DELIVERY_DETAIL_EXAMPLE.attemptLog[0] }],
      },
    ),
    ...commonErrorResponses(SCOPE),
    400: ID_400,
    404: NOT_FOUND,
  },
} as const;

export const redeliverSchema = {
  operationId: 'redeliverEvent',
  tags: ['webhooks'],
  ...BETA,
  summary: 'Deliver an event again (beta)',
  description: 'Queues the event again: to endpointId when given (whatever it subscribes to), else to every enabled endpoint subscribed to its type.',
  params: Type.Object({ eventId: Type.String({ minLength: 1, maxLength: 100, description: 'The event id.', examples: [EVENT_ID_EXAMPLE] }) }),
  body: Type.Object(
    { endpointId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Only this endpoint.' })) },
    { title: 'RedeliverEventRequest', additionalProperties: false, examples: [{ endpointId: ENDPOINT_ID_EXAMPLE }] },
  ),
  response: {
    202: Type.Object(
      { queued: Type.Integer({ format: 'int32', minimum: 0, maximum: 1_000_000, description: 'How many deliveries were queued.' }) },
      { title: 'RedeliveryQueued', additionalProperties: false, description: 'Queued.', examples: [{ queued: 1 }] },
    ),
    ...commonErrorResponses(SCOPE),
    400: BODY_400,
    404: errorResponse('No such event or endpoint for this account (event_not_found, webhook_endpoint_not_found).', [
      { code: 'event_not_found', message: 'No event with this id exists.' },
      { code: 'webhook_endpoint_not_found', message: 'No webhook endpoint with this id exists.' },
    ]),
    413: TOO_LARGE,
  },
} as const;

export const recoverSchema = {
  operationId: 'recoverWebhookDeliveries',
  tags: ['webhooks'],
  ...BETA,
  summary: 'Recover failed deliveries (beta)',
  description:
    'Queues again, in their order, the events whose delivery to this endpoint was given up (`failed`) with a last attempt at or after `since`: what to do once a receiver is fixed. ' +
    'A new delivery each, due now; the key needs the read scopes of the endpoint\'s event types. Recorded in the audit trail.',
  params: EndpointIdParamsSchema,
  body: Type.Object(
    { since: Type.String({ format: 'date-time', maxLength: 40, description: 'ISO 8601: recover deliveries given up at or after this instant.' }) },
    { title: 'RecoverWebhookDeliveriesRequest', additionalProperties: false, examples: [{ since: '2026-11-24T00:00:00Z' }] },
  ),
  response: {
    202: Type.Object({ queued: Type.Integer({ format: 'int32', minimum: 0, description: 'Deliveries queued.' }) }, { title: 'WebhookRecoveryResult', additionalProperties: false, examples: [{ queued: 3 }] }),
    ...commonErrorResponses(SCOPE),
    400: BODY_400,
    404: NOT_FOUND,
    413: TOO_LARGE,
  },
} as const;
