import { Type, type Static } from 'typebox';
import { INVALID_CURSOR_EXAMPLE, nextCursorOrNull, PAGE_QUERY_FIELDS } from '../api/http/page-schemas.js';
import { commonErrorResponses, errorResponse, ErrorRecordSchema } from '../api/http/error-responses.js';
import { PAGE_LIMIT_DESCRIPTION, PAGE_LIMIT_MAX } from '../api/page-bounds.js';
import { documentedAs } from '../openapi/openapi-document.js';
import { API_VERSIONS } from './request-logs-repository.js';
import { FILTER_DESCRIPTIONS, STATUS_FILTER_PATTERN } from './request-logs-service.js';

const BETA = { 'x-stability': 'beta' } as const;
export const REQUEST_LOGS_SCOPE = 'logs:read';

const RequestLogKeySchema = Type.Object(
  {
    id: Type.Integer({ format: 'int64', minimum: 1, description: 'The API key\'s id (as `store-orders keys list` and the portal show it).' }),
    start: Type.Optional(Type.String({ maxLength: 32, description: 'The key\'s visible start (so_prod_ab12); never the key. Absent once the key is gone.' })),
  },
  { title: 'RequestLogKey', additionalProperties: false, description: 'The key the request was made with.' },
);

const RequestLogSchema = Type.Object(
  {
    id: Type.Unsafe<bigint>({ type: 'integer', format: 'int64', minimum: 1, description: 'The log entry\'s identifier.' }),
    at: Type.String({ format: 'date-time', maxLength: 35, description: 'When the request arrived, ISO 8601 in UTC.' }),
    method: Type.String({ maxLength: 16, description: 'The HTTP method.' }),
    path: Type.String({
      maxLength: 2048,
      description: 'The path and query as sent, except that query values whose names suggest a secret (token, key, secret, …) and anything shaped like an API key are replaced by [redacted].',
    }),
    status: Type.Integer({ format: 'int32', minimum: 100, maximum: 599, description: 'The HTTP status of the answer.' }),
    errorCode: Type.Optional(Type.String({ maxLength: 64, description: 'The Error record\'s code, for an error answer.' })),
    durationMs: Type.Number({ minimum: 0, description: 'How long the server took to answer, in milliseconds.' }),
    requestId: Type.String({ maxLength: 128, description: 'The X-Request-Id of the answer.' }),
    key: Type.Optional(RequestLogKeySchema),
    clientAddress: Type.Optional(Type.String({ maxLength: 64, description: 'The client\'s IP address (after TRUST_PROXY).' })),
    userAgent: Type.Optional(Type.String({ maxLength: 512, description: 'The User-Agent header as sent (at most 512 characters).' })),
    apiVersion: Type.Optional(Type.String({ enum: [...API_VERSIONS], description: 'The API version the path names.' })),
    response: Type.Optional(ErrorRecordSchema),
  },
  { title: 'RequestLog', additionalProperties: false, description: 'One request the account\'s key made and what it got back. Never a header, cookie or secret.' },
);
export type RequestLogRecord = Static<typeof RequestLogSchema>;

/** Strings on purpose: the service parses each exactly and names the parameter it refuses. */
const ListRequestLogsQuerySchema = Type.Object(
  {
    status: Type.Optional(
      Type.String({ pattern: STATUS_FILTER_PATTERN, maxLength: 3, description: FILTER_DESCRIPTIONS.status }),
    ),
    method: Type.Optional(Type.String({ minLength: 1, maxLength: 16, description: FILTER_DESCRIPTIONS.method })),
    path: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: FILTER_DESCRIPTIONS.path })),
    requestId: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: FILTER_DESCRIPTIONS.requestId })),
    keyId: Type.Optional(
      documentedAs(Type.String({ pattern: '^[1-9][0-9]{0,15}$', description: FILTER_DESCRIPTIONS.keyId }), { type: 'integer', format: 'int64', minimum: 1 }),
    ),
    since: Type.Optional(Type.String({ format: 'date-time', maxLength: 64, description: FILTER_DESCRIPTIONS.since })),
    until: Type.Optional(Type.String({ format: 'date-time', maxLength: 64, description: FILTER_DESCRIPTIONS.until })),
    ...PAGE_QUERY_FIELDS,
  },
  { additionalProperties: false },
);
export const LIST_REQUEST_LOGS_PARAMETERS: readonly string[] = Object.keys(ListRequestLogsQuerySchema.properties);

const REQUEST_LOG_EXAMPLES = [
  {
    id: 9,
    at: '2026-11-27T10:02:00.000Z',
    method: 'DELETE',
    path: '/v1/store/orders/1001',
    status: 409,
    errorCode: 'order_already_shipped',
    durationMs: 3.2,
    requestId: '7f1c2a9e-4c1b-4f7e-9d3a-2b8c6e5f1a00',
    key: { id: 12, start: 'so_prod_ab12' },
    clientAddress: '203.0.113.7',
    userAgent: 'store-orders-client/1.0',
    apiVersion: 'v1',
    response: { code: 'order_already_shipped', message: 'Order 1001 has already shipped and cannot be cancelled.', status: 409 },
  },
  {
    id: 8,
    at: '2026-11-27T10:01:00.000Z',
    method: 'GET',
    path: '/v2/store/orders?status=pending&limit=20',
    status: 200,
    durationMs: 1.1,
    requestId: '0b9d8c7e-6f5a-4e3d-8c2b-1a0f9e8d7c6b',
    key: { id: 12, start: 'so_prod_ab12' },
    clientAddress: '203.0.113.7',
    apiVersion: 'v2',
  },
] as const;

export const listRequestLogsSchema = {
  operationId: 'listRequestLogs',
  tags: ['request-logs'],
  ...BETA,
  summary: 'List request logs, newest first (beta)',
  description:
    "Returns the requests the account's API keys made to this API, newest first, one page at a time: what was sent (method, path and query, " +
    'never a header or a secret), what came back (status, and for an error its Error record), how long it took, with which key and from where. ' +
    'Requests with a key that failed (expired, revoked, lacking a scope) are logged for the key\'s account too. ' +
    'Entries appear within about a second and are kept for 14 days by default (REQUEST_LOG_RETENTION_DAYS).',
  querystring: ListRequestLogsQuerySchema,
  response: {
    200: Type.Object(
      {
        data: Type.Array(RequestLogSchema, { maxItems: PAGE_LIMIT_MAX, description: `The entries of this page, newest first: at most limit (at most ${PAGE_LIMIT_MAX}).` }),
        nextCursor: nextCursorOrNull(),
      },
      {
        title: 'RequestLogsPage',
        additionalProperties: false,
        description: 'One page of the account\'s request logs, newest first. nextCursor is null on the last page; otherwise pass it as cursor, with the same filters, for the next.',
        examples: [{ data: REQUEST_LOG_EXAMPLES, nextCursor: 'eyJhIjoxLCJmIjoicmVxdWVzdC1sb2dzIiwiayI6IjgifQ.c2lnbmF0dXJlLW9mLTE2Yg' }],
      },
    ),
    ...commonErrorResponses(REQUEST_LOGS_SCOPE),
    400: errorResponse(
      'A query parameter is unknown, repeated, empty or malformed (validation_failed; the message names it), ' +
        'or the cursor is not a nextCursor of this listing: altered, of another account or sent with other filters (invalid_cursor).',
      [
        { code: 'validation_failed', message: `Query parameter limit is not valid. Expected: ${PAGE_LIMIT_DESCRIPTION}` },
        { code: 'validation_failed', message: `Query parameter status is not valid. Expected: ${FILTER_DESCRIPTIONS.status}` },
        INVALID_CURSOR_EXAMPLE,
      ],
    ),
  },
} as const;
