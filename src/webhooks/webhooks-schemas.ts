import { Type, type Static } from 'typebox';
import { commonErrorResponses, errorResponse } from '../api/http/error-responses.js';
import { documentedAs } from '../openapi/openapi-document.js';
import { WEBHOOK_ENDPOINT_STATUSES } from './webhooks-repository.js';
import {
  DescriptionSchema,
  ENDPOINT_EXAMPLE,
  ENDPOINT_ID_EXAMPLE,
  ENDPOINT_PROPERTIES,
  EventTypesSchema,
  RateLimitSchema,
  SECRET_EXAMPLE,
  UrlSchema,
  WITH_SECRET_PROPERTIES,
  WebhookEndpointSchema,
} from './webhook-record-schemas.js';

/** The largest body the webhook-endpoint operations read (413 beyond). */
export const WEBHOOKS_BODY_LIMIT_BYTES = 16 * 1024;
export const WEBHOOKS_LIMIT_MAX = 100;
const WEBHOOKS_LIMIT_DEFAULT = 20;

export const BETA = { 'x-stability': 'beta' } as const;
export const SCOPE = 'webhooks:manage';

export const PageQuerySchema = Type.Object(
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
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'the nextCursor of the previous page, unchanged.' })),
  },
  { additionalProperties: false },
);
export type PageQuery = Static<typeof PageQuerySchema>;
export const PAGE_LIMIT_DEFAULT = WEBHOOKS_LIMIT_DEFAULT;

export const NextCursorSchema = Type.Union([Type.String({ maxLength: 512 }), Type.Null()], { description: 'Opaque cursor of the next page, or null when this page is the last.' });

export const EndpointIdParamsSchema = Type.Object({
  endpointId: Type.String({ pattern: '^we_[0-9a-f]{32}$', maxLength: 35, description: 'The endpoint id: `we_` and 32 hex digits.', examples: [ENDPOINT_ID_EXAMPLE] }),
});

export const ID_400 = errorResponse('The endpointId is not `we_` and 32 hex digits (validation_failed).', {
  code: 'validation_failed',
  message: 'Path parameter endpointId is not valid.',
});
export const NOT_FOUND = errorResponse("No such endpoint for this account; another account's endpoint is not found either (webhook_endpoint_not_found).", {
  code: 'webhook_endpoint_not_found',
  message: 'No webhook endpoint with this id exists.',
});
export const BODY_400 = errorResponse(
  'The body is not a JSON object (malformed_request, content_type_not_json), a field is missing, unknown or invalid, ' +
    'or the URL is refused: not https, credentials in it, or a host that resolves to a loopback, private, link-local, multicast or metadata address (validation_failed; the message says why).',
  [
    { code: 'validation_failed', message: "url is refused: The URL's host 169.254.169.254 is in a link-local (cloud metadata) range, which webhooks may not reach." },
    { code: 'content_type_not_json', message: 'The Content-Type must be application/json.' },
  ],
);
export const CURSOR_400 = errorResponse('A query parameter is malformed (validation_failed) or the cursor is not a nextCursor of this listing (invalid_cursor).', {
  code: 'invalid_cursor',
  message: 'Query parameter cursor is not valid: pass the nextCursor of a previous page unchanged.',
});
export const TOO_LARGE = errorResponse(`The body is over ${WEBHOOKS_BODY_LIMIT_BYTES} bytes (payload_too_large).`, {
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
    { url: UrlSchema, eventTypes: Type.Optional(EventTypesSchema), description: Type.Optional(DescriptionSchema), rateLimit: Type.Optional(RateLimitSchema) },
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
    400: ID_400,
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
      // One schema with two types, not anyOf: Ajv's coercion would take 0 for null (and remove the limit) instead of refusing it.
      rateLimit: Type.Optional(
        Type.Unsafe<number | null>({ ...RateLimitSchema, type: ['integer', 'null'], description: 'At most this many deliveries a second (1 to 10,000); null removes the limit.' }),
      ),
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
    400: ID_400,
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
    400: ID_400,
    404: NOT_FOUND,
  },
} as const;
