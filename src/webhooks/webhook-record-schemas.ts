import { Type, type Static } from 'typebox';
import { EVENT_TYPES } from '../events/event-types.js';
import { RATE_LIMIT_MAX, WEBHOOK_DELIVERY_STATUSES, WEBHOOK_ENDPOINT_STATUSES } from './webhooks-repository.js';

/** The records the webhook operations answer with, and their examples. */

const URL_MAX_LENGTH = 2048;
const DESCRIPTION_MAX_LENGTH = 500;
export const ENDPOINT_ID_EXAMPLE = 'we_3f9c2a4e9b7d4c558e0e3d2b1a0f9c87';
export const EVENT_ID_EXAMPLE = 'evt_0b8a3f7e5c1d4e2a9f607d4c3b2a1e09';
export const SECRET_EXAMPLE = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

export const UrlSchema = Type.String({
  minLength: 1,
  maxLength: URL_MAX_LENGTH,
  description: 'Where events are POSTed: an https URL (http only where the operator allows it) whose host resolves to public addresses only.',
});
export const EventTypesSchema = Type.Array(Type.String({ enum: [...EVENT_TYPES], maxLength: 40 }), {
  minItems: 1,
  maxItems: EVENT_TYPES.length,
  uniqueItems: true,
  description: `The event types to receive (${EVENT_TYPES.join(', ')}).`,
});
export const RateLimitSchema = Type.Integer({
  format: 'int32',
  minimum: 1,
  maximum: RATE_LIMIT_MAX,
  description: `At most this many deliveries a second to this endpoint, 1 to ${RATE_LIMIT_MAX} (every server process together); deliveries beyond it wait their turn, in order.`,
});
export const DescriptionSchema = Type.String({ maxLength: DESCRIPTION_MAX_LENGTH, description: 'A note for people, shown back as given.' });

export const ENDPOINT_PROPERTIES = {
  id: Type.String({ maxLength: 40, description: 'The endpoint id: `we_` and 32 hex digits.' }),
  url: Type.String({ maxLength: URL_MAX_LENGTH, description: 'Where events are POSTed.' }),
  eventTypes: Type.Union([Type.Array(Type.String({ enum: [...EVENT_TYPES], maxLength: 40 }), { maxItems: EVENT_TYPES.length }), Type.Null()], {
    description: 'The event types it receives; null: every type, those added later included.',
  }),
  description: Type.Union([Type.String({ maxLength: DESCRIPTION_MAX_LENGTH }), Type.Null()], { description: 'The note given, or null.' }),
  status: Type.String({
    enum: [...WEBHOOK_ENDPOINT_STATUSES],
    maxLength: 8,
    description: '`enabled`: events are delivered; `disabled` (by you, or by the service after HTTP 410 or 5 days of failures): deliveries wait.',
  }),
  disabledReason: Type.Union([Type.String({ maxLength: 200 }), Type.Null()], { description: 'Why the service disabled it, or null.' }),
  rateLimit: Type.Union([Type.Integer({ format: 'int32', minimum: 1, maximum: RATE_LIMIT_MAX }), Type.Null()], {
    description: 'At most this many deliveries a second, or null for no limit (the service still paces each endpoint by how fast it answers).',
  }),
  pausedUntil: Type.Union([Type.String({ format: 'date-time', maxLength: 30 }), Type.Null()], {
    description: 'The endpoint answered 429 or 503 with Retry-After: nothing is sent to it until then. Null when not paused.',
  }),
  createdAt: Type.String({ format: 'date-time', maxLength: 30, description: 'When it was created, ISO 8601 in UTC.' }),
};
export const WebhookEndpointSchema = Type.Object(ENDPOINT_PROPERTIES, { title: 'WebhookEndpoint', additionalProperties: false });
export type WebhookEndpointRecord = Static<typeof WebhookEndpointSchema>;

export const WITH_SECRET_PROPERTIES = {
  ...ENDPOINT_PROPERTIES,
  secret: Type.String({
    maxLength: 100,
    description: 'The signing secret (Standard Webhooks, `whsec_…`). Shown only in this response: store it now.',
  }),
};

export const ENDPOINT_EXAMPLE = {
  id: ENDPOINT_ID_EXAMPLE,
  url: 'https://hooks.example.com/store-orders',
  eventTypes: ['order.cancelled', 'order.shipped'],
  description: 'Fulfilment service',
  status: 'enabled',
  disabledReason: null,
  rateLimit: null,
  pausedUntil: null,
  createdAt: '2026-11-24T10:00:00.000Z',
};

const DELIVERY_PROPERTIES = {
  id: Type.String({ maxLength: 20, description: 'The delivery id (decimal).' }),
  eventId: Type.String({ maxLength: 40, description: 'The event delivered; also the webhook-id header of every attempt.' }),
  status: Type.String({ enum: [...WEBHOOK_DELIVERY_STATUSES], maxLength: 9, description: '`pending` (waiting or retrying), `succeeded` or `failed` (given up).' }),
  createdAt: Type.String({ format: 'date-time', maxLength: 30, description: 'When it was queued, ISO 8601 in UTC.' }),
  attempts: Type.Integer({ format: 'int32', minimum: 0, maximum: 1000, description: 'Attempts made so far.' }),
  lastAttemptAt: Type.Union([Type.String({ format: 'date-time', maxLength: 30 }), Type.Null()], { description: 'When the latest attempt ended, or null.' }),
  statusCode: Type.Union([Type.Integer({ format: 'int32', minimum: 100, maximum: 599 }), Type.Null()], { description: "The latest attempt's HTTP status, or null when it got none." }),
  error: Type.Union([Type.String({ maxLength: 200 }), Type.Null()], { description: 'Why the latest attempt failed, or null.' }),
  durationMs: Type.Union([Type.Integer({ format: 'int32', minimum: 0, maximum: 3_600_000 }), Type.Null()], { description: 'How long the latest attempt took, or null.' }),
  nextAttemptAt: Type.Union([Type.String({ format: 'date-time', maxLength: 30 }), Type.Null()], {
    description: 'When the next attempt is due (pending only), or null.',
  }),
};
export const WebhookDeliverySchema = Type.Object(DELIVERY_PROPERTIES, { title: 'WebhookDelivery', additionalProperties: false });
export type WebhookDeliveryRecord = Static<typeof WebhookDeliverySchema>;

export const DELIVERY_EXAMPLE = {
  id: '42',
  eventId: EVENT_ID_EXAMPLE,
  status: 'pending',
  createdAt: '2026-11-24T10:00:00.000Z',
  attempts: 1,
  lastAttemptAt: '2026-11-24T10:00:00.231Z',
  statusCode: 503,
  error: 'The endpoint answered HTTP 503.',
  durationMs: 231,
  nextAttemptAt: '2026-11-24T10:00:05.231Z',
};


const HeadersSchema = Type.Record(Type.String({ maxLength: 200 }), Type.String({ maxLength: 8192 }), { description: 'Header names (lower case) to values.' });

export const WebhookDeliveryAttemptSchema = Type.Object(
  {
    attempt: Type.Integer({ format: 'int32', minimum: 1, maximum: 1000, description: 'Which attempt: 1 for the first.' }),
    at: Type.String({ format: 'date-time', maxLength: 30, description: 'When it ended, ISO 8601 in UTC.' }),
    durationMs: Type.Union([Type.Integer({ format: 'int32', minimum: 0, maximum: 3_600_000 }), Type.Null()], { description: 'How long it took.' }),
    statusCode: Type.Union([Type.Integer({ format: 'int32', minimum: 100, maximum: 599 }), Type.Null()], { description: 'The HTTP status the endpoint answered, or null when it did not.' }),
    error: Type.Union([Type.String({ maxLength: 200 }), Type.Null()], { description: 'Why it failed, in words (a connection error, a timeout, a status), or null when it succeeded.' }),
    request: Type.Object({ headers: HeadersSchema }, { additionalProperties: false, description: 'What was sent: the headers, the Standard Webhooks signature among them. The body is the delivery\'s event.' }),
    response: Type.Union(
      [Type.Object({ headers: HeadersSchema, body: Type.String({ maxLength: 8192, description: 'The first 4 KB of the body, as UTF-8.' }) }, { additionalProperties: false }), Type.Null()],
      { description: 'What came back: the headers and the first 4 KB of the body; null when no answer came.' },
    ),
  },
  { title: 'WebhookDeliveryAttempt', additionalProperties: false },
);

export const WebhookDeliveryDetailSchema = Type.Object(
  {
    ...DELIVERY_PROPERTIES,
    attemptLog: Type.Array(WebhookDeliveryAttemptSchema, { maxItems: 1000, description: 'Every attempt, oldest first.' }),
  },
  { title: 'WebhookDeliveryDetail', additionalProperties: false },
);
export type WebhookDeliveryDetailRecord = Static<typeof WebhookDeliveryDetailSchema>;

export const DELIVERY_DETAIL_EXAMPLE = {
  ...DELIVERY_EXAMPLE,
  attemptLog: [
    {
      attempt: 1,
      at: '2026-11-24T10:00:00.231Z',
      durationMs: 231,
      statusCode: 503,
      error: 'The endpoint answered HTTP 503.',
      request: {
        headers: {
          'webhook-id': EVENT_ID_EXAMPLE,
          'webhook-timestamp': '1795000000',
          'webhook-signature': 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
          'content-type': 'application/json',
          'user-agent': 'store-orders-webhooks/1 (+https://github.com/store-orders)',
        },
      },
      response: { headers: { 'content-type': 'text/plain', 'retry-after': '5' }, body: 'busy' },
    },
  ],
};
