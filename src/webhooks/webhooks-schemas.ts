import { Type, type Static } from 'typebox';
import { commonErrorResponses, errorResponse } from '../http/error-responses.js';
import { documentedAs } from '../openapi/openapi-document.js';
import { EVENT_TYPES } from '../events/event-types.js';
import { WEBHOOK_DELIVERY_STATUSES, WEBHOOK_ENDPOINT_STATUSES } from './webhooks-repository.js';

/** The largest body the webhook-endpoint operations read (413 beyond). */
export const WEBHOOKS_BODY_LIMIT_BYTES = 16 * 1024;
export const WEBHOOKS_LIMIT_MAX = 100;
const WEBHOOKS_LIMIT_DEFAULT = 20;
const URL_MAX_LENGTH = 2048;
const DESCRIPTION_MAX_LENGTH = 500;

const BETA = { 'x-stability': 'beta' } as const;
const SCOPE = 'webhooks:manage';

const ENDPOINT_ID_EXAMPLE = 'we_3f9c2a4e9b7d4c558e0e3d2b1a0f9c87';
const EVENT_ID_EXAMPLE = 'evt_0b8a3f7e5c1d4e2a9f607d4c3b2a1e09';
const SECRET_EXAMPLE = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

const UrlSchema = Type.String({
  minLength: 1,
  maxLength: URL_MAX_LENGTH,
  description: 'Where events are POSTed: an https URL (http only where the operator allows it) whose host resolves to public addresses only.',
});
const EventTypesSchema = Type.Array(Type.String({ enum: [...EVENT_TYPES], maxLength: 40 }), {
  minItems: 1,
  maxItems: EVENT_TYPES.length,
  uniqueItems: true,
  description: `The event types to receive (${EVENT_TYPES.join(', ')}).`,
});
const DescriptionSchema = Type.String({ maxLength: DESCRIPTION_MAX_LENGTH, description: 'A note for people, shown back as given.' });

const ENDPOINT_PROPERTIES = {
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
  createdAt: Type.String({ format: 'date-time', maxLength: 30, description: 'When it was created, ISO 8601 in UTC.' }),
};
const WebhookEndpointSchema = Type.Object(ENDPOINT_PROPERTIES, { title: 'WebhookEndpoint', additionalProperties: false });
export type WebhookEndpointRecord = Static<typeof WebhookEndpointSchema>;

const WITH_SECRET_PROPERTIES = {
  ...ENDPOINT_PROPERTIES,
  secret: Type.String({
    maxLength: 100,
    description: 'The signing secret (Standard Webhooks, `whsec_…`). Shown only in this response: store it now.',
  }),
};

const ENDPOINT_EXAMPLE = {
  id: ENDPOINT_ID_EXAMPLE,
  url: 'https://hooks.example.com/store-orders',
  eventTypes: ['order.cancelled', 'order.shipped'],
  description: 'Fulfilment service',
  status: 'enabled',
  disabledReason: null,
  createdAt: '2026-11-24T10:00:00.000Z',
};

const DELIVERY_PROPERTIES = {
  id: Type.String({ maxLength: 20, description: 'The delivery id (decimal).' }),
  eventId: Type.String({ maxLength: 40, description: 'The event delivered; also the webhook-id header of every attempt.' }),
  status: Type.String({ enum: [...WEBHOOK_DELIVERY_STATUSES], maxLength: 9, description: '`pending` (waiting or retrying), `succeeded` or `failed` (given up).' }),
  createdAt: Type.String({ format: 'date-time', maxLength: 30, description: 'When it was queued, ISO 8601 in UTC.' }),
  attempts: Type.Integer({ minimum: 0, maximum: 1000, description: 'Attempts made so far.' }),
  lastAttemptAt: Type.Union([Type.String({ format: 'date-time', maxLength: 30 }), Type.Null()], { description: 'When the latest attempt ended, or null.' }),
  statusCode: Type.Union([Type.Integer({ minimum: 100, maximum: 599 }), Type.Null()], { description: "The latest attempt's HTTP status, or null when it got none." }),
  error: Type.Union([Type.String({ maxLength: 200 }), Type.Null()], { description: 'Why the latest attempt failed, or null.' }),
  durationMs: Type.Union([Type.Integer({ minimum: 0, maximum: 3_600_000 }), Type.Null()], { description: 'How long the latest attempt took, or null.' }),
  nextAttemptAt: Type.Union([Type.String({ format: 'date-time', maxLength: 30 }), Type.Null()], {
    description: 'When the next attempt is due (pending only), or null.',
  }),
};
const WebhookDeliverySchema = Type.Object(DELIVERY_PROPERTIES, { title: 'WebhookDelivery', additionalProperties: false });
export type WebhookDeliveryRecord = Static<typeof WebhookDeliverySchema>;

const DELIVERY_EXAMPLE = {
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

const PageQuerySchema = Type.Object(
  {
    limit: Type.Optional(
      documentedAs(Type.String({ pattern: '^[1-9][0-9]{0,2}$', description: `the page size, 1 to ${WEBHOOKS_LIMIT_MAX} (default ${WEBHOOKS_LIMIT_DEFAULT}).` }), {
        type: 'integer',
        format: 'int32',
        minimum: 1,
        maximum: WEBHOOKS_LIMIT_MAX,
        default: WEBHOOKS_LIMIT_DEFAULT,
      }),
    ),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'the nextCursor of the previous page, unchanged.' })),
  },
  { additionalProperties: false },
);
export type PageQuery = Static<typeof PageQuerySchema>;
export const PAGE_LIMIT_DEFAULT = WEBHOOKS_LIMIT_DEFAULT;

const NextCursorSchema = Type.Union([Type.String({ maxLength: 100 }), Type.Null()], { description: 'Opaque cursor of the next page, or null when this page is the last.' });

const EndpointIdParamsSchema = Type.Object({
  endpointId: Type.String({ minLength: 1, maxLength: 100, description: 'The endpoint id.', examples: [ENDPOINT_ID_EXAMPLE] }),
});

const NOT_FOUND = errorResponse("No such endpoint for this account; another account's endpoint is not found either (webhook_endpoint_not_found).", {
  code: 'webhook_endpoint_not_found',
  message: 'No webhook endpoint with this id exists.',
});
const BODY_400 = errorResponse(
  'The body is not a JSON object (malformed_request, content_type_not_json), a field is missing, unknown or invalid, ' +
    'or the URL is refused: not https, credentials in it, or a host that resolves to a loopback, private, link-local, multicast or metadata address (validation_failed; the message says why).',
  [
    { code: 'validation_failed', message: "url is refused: The URL's host 169.254.169.254 is in a link-local (cloud metadata) range, which webhooks may not reach." },
    { code: 'content_type_not_json', message: 'The Content-Type must be application/json.' },
  ],
);
const CURSOR_400 = errorResponse('A query parameter is malformed (validation_failed) or the cursor is not a nextCursor of this listing (invalid_cursor).', {
  code: 'invalid_cursor',
  message: 'Query parameter cursor is not valid: pass the nextCursor of a previous page unchanged.',
});
const TOO_LARGE = errorResponse(`The body is over ${WEBHOOKS_BODY_LIMIT_BYTES} bytes (payload_too_large).`, {
  code: 'payload_too_large',
  message: 'The request body is larger than this endpoint accepts.',
});

export const createEndpointSchema = {
  operationId: 'createWebhookEndpoint',
  tags: ['webhooks'],
  ...BETA,
  summary: 'Create a webhook endpoint (beta)',
  description: 'Registers a URL that receives signed events (Standard Webhooks). The response carries the signing secret, shown only here.',
  body: Type.Object(
    { url: UrlSchema, eventTypes: Type.Optional(EventTypesSchema), description: Type.Optional(DescriptionSchema) },
    { title: 'CreateWebhookEndpointRequest', additionalProperties: false, examples: [{ url: ENDPOINT_EXAMPLE.url, eventTypes: ENDPOINT_EXAMPLE.eventTypes, description: 'Fulfilment service' }] },
  ),
  response: {
    201: Type.Object(WITH_SECRET_PROPERTIES, {
      title: 'WebhookEndpointWithSecret',
      additionalProperties: false,
      description: 'Created. Keep the secret: it is not shown again (rotate it to get a new one).',
      examples: [{ ...ENDPOINT_EXAMPLE, secret: SECRET_EXAMPLE }],
    }),
    ...commonErrorResponses(SCOPE),
    400: BODY_400,
    413: TOO_LARGE,
  },
} as const;

export const listEndpointsSchema = {
  operationId: 'listWebhookEndpoints',
  tags: ['webhooks'],
  ...BETA,
  summary: 'List webhook endpoints (beta)',
  description: "The account's webhook endpoints, one page at a time (secrets are never listed).",
  querystring: PageQuerySchema,
  response: {
    200: Type.Object(
      { data: Type.Array(WebhookEndpointSchema, { maxItems: WEBHOOKS_LIMIT_MAX, description: 'The endpoints of this page.' }), nextCursor: NextCursorSchema },
      { title: 'WebhookEndpointsPage', additionalProperties: false, description: 'One page of endpoints.', examples: [{ data: [ENDPOINT_EXAMPLE], nextCursor: null }] },
    ),
    ...commonErrorResponses(SCOPE),
    400: CURSOR_400,
  },
} as const;

export const getEndpointSchema = {
  operationId: 'getWebhookEndpoint',
  tags: ['webhooks'],
  ...BETA,
  summary: 'Get a webhook endpoint (beta)',
  description: 'One endpoint of the account, without its secret.',
  params: EndpointIdParamsSchema,
  response: {
    200: Type.Object(ENDPOINT_PROPERTIES, { title: 'WebhookEndpoint', additionalProperties: false, description: 'The endpoint.', examples: [ENDPOINT_EXAMPLE] }),
    ...commonErrorResponses(SCOPE),
    404: NOT_FOUND,
  },
} as const;

export const updateEndpointSchema = {
  operationId: 'updateWebhookEndpoint',
  tags: ['webhooks'],
  ...BETA,
  summary: 'Update a webhook endpoint (beta)',
  description: 'Changes the fields given. Enabling an endpoint the service disabled resumes its waiting deliveries, in order.',
  params: EndpointIdParamsSchema,
  body: Type.Object(
    {
      url: Type.Optional(UrlSchema),
      eventTypes: Type.Optional(Type.Union([Type.Null(), EventTypesSchema], { description: 'The event types to receive; null: every type.' })),
      description: Type.Optional(Type.Union([Type.Null(), DescriptionSchema], { description: 'A note for people; null removes it.' })),
      status: Type.Optional(Type.String({ enum: [...WEBHOOK_ENDPOINT_STATUSES], maxLength: 8, description: 'enabled or disabled.' })),
    },
    { title: 'UpdateWebhookEndpointRequest', additionalProperties: false, examples: [{ status: 'disabled' }] },
  ),
  response: {
    200: Type.Object(ENDPOINT_PROPERTIES, {
      title: 'WebhookEndpoint',
      additionalProperties: false,
      description: 'The endpoint as updated.',
      examples: [{ ...ENDPOINT_EXAMPLE, status: 'disabled' }],
    }),
    ...commonErrorResponses(SCOPE),
    400: BODY_400,
    404: NOT_FOUND,
    413: TOO_LARGE,
  },
} as const;

export const deleteEndpointSchema = {
  operationId: 'deleteWebhookEndpoint',
  tags: ['webhooks'],
  ...BETA,
  summary: 'Delete a webhook endpoint (beta)',
  description: 'Deletes the endpoint and its delivery log; nothing more is sent to it.',
  params: EndpointIdParamsSchema,
  response: {
    204: Type.Null({ description: 'Deleted.' }),
    ...commonErrorResponses(SCOPE),
    404: NOT_FOUND,
  },
} as const;

export const rotateSecretSchema = {
  operationId: 'rotateWebhookEndpointSecret',
  tags: ['webhooks'],
  ...BETA,
  summary: 'Rotate the signing secret (beta)',
  description: 'Issues a new signing secret, shown only here. For 24 hours every delivery carries signatures by both the new and the previous secret.',
  params: EndpointIdParamsSchema,
  response: {
    200: Type.Object(WITH_SECRET_PROPERTIES, {
      title: 'WebhookEndpointWithSecret',
      additionalProperties: false,
      description: 'The endpoint and its new secret.',
      examples: [{ ...ENDPOINT_EXAMPLE, secret: SECRET_EXAMPLE }],
    }),
    ...commonErrorResponses(SCOPE),
    404: NOT_FOUND,
  },
} as const;

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
      { queued: Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'How many deliveries were queued.' }) },
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
