import { Type, type Static } from 'typebox';
import { IfNoneMatchHeadersSchema, NotModifiedResponseSchema, VALIDATOR_HEADER_DOCS } from '../../api/http/conditional-get.js';
import { commonErrorResponses, errorResponse } from '../../api/http/error-responses.js';
import { documentedAs } from '../../openapi/openapi-document.js';
import { Int64Parameter } from '../../api/http/int64-parameter.js';
import { INVALID_CURSOR_EXAMPLE, nextCursorOrNull, PAGE_QUERY_FIELDS } from '../../api/http/page-schemas.js';
import { ORDER_STATUSES } from '../orders-repository.js';
import { ORDER_FIELDS, ORDER_ID_DESCRIPTION, OrderIdParamsSchema } from '../orders-schemas.js';
import { PAGE_LIMIT_DESCRIPTION, PAGE_LIMIT_MAX } from '../../api/page-bounds.js';

/** The v2 Order record: v1's fields plus `status`; id, complete and status are always present. */
export const OrderV2Schema = Type.Object(
  {
    // The always-present fields first: it is the order the serializer writes.
    id: ORDER_FIELDS.id,
    status: Type.String({ enum: [...ORDER_STATUSES], description: 'pending, shipped or cancelled.' }),
    complete: ORDER_FIELDS.complete,
    petId: Type.Optional(ORDER_FIELDS.petId),
    quantity: Type.Optional(ORDER_FIELDS.quantity),
    shipDate: Type.Optional(ORDER_FIELDS.shipDate),
  },
  { title: 'OrderV2', additionalProperties: false },
);
export type OrderV2Record = Static<typeof OrderV2Schema>;

const ORDERS_PAGE_DESCRIPTION =
  'One page of orders by id. nextCursor is null on the last page; otherwise pass it as cursor, with the same filters, for the next.';

const OrdersPageSchema = Type.Object(
  {
    data: Type.Array(OrderV2Schema, { maxItems: PAGE_LIMIT_MAX, description: `The orders of this page, by id: at most limit (at most ${PAGE_LIMIT_MAX}).` }),
    nextCursor: nextCursorOrNull(),
  },
  { title: 'OrdersPage', additionalProperties: false, description: ORDERS_PAGE_DESCRIPTION },
);

export const SHIP_DATE_DESCRIPTION = 'an ISO 8601 date-time with a time zone, e.g. 2026-12-01T10:00:00Z.';

/**
 * Every value is a string on purpose: Fastify's validator would otherwise
 * coerce `petId` through a JS number and lose int64 digits. The route parses
 * each value exactly (see parseListQuery); the OpenAPI document shows each as
 * the type it is on the wire (documentedAs, and int64 for petId).
 */
const ListOrdersV2QuerySchema = Type.Object(
  {
    status: Type.Optional(
      Type.Array(Type.String({ enum: [...ORDER_STATUSES], description: 'one of pending, shipped, cancelled, each at most once.' }), {
        uniqueItems: true,
        maxItems: ORDER_STATUSES.length,
        description: 'Only orders in one of these statuses; repeat the parameter for several (status=pending&status=shipped). Default: any status.',
      }),
    ),
    petId: Type.Optional(Int64Parameter(`only orders for this pet: ${ORDER_ID_DESCRIPTION.replace("the order's identifier, ", '')}`)),
    complete: Type.Optional(
      documentedAs(Type.String({ enum: ['true', 'false'], description: 'only orders that are fulfilled (true) or not (false).' }), { type: 'boolean' }),
    ),
    shipDateFrom: Type.Optional(
      Type.String({ format: 'date-time', maxLength: 64, description: `only orders shipping at or after this instant: ${SHIP_DATE_DESCRIPTION}` }),
    ),
    shipDateTo: Type.Optional(
      Type.String({
        format: 'date-time',
        maxLength: 64,
        description: `only orders shipping before this instant (the range is half-open): ${SHIP_DATE_DESCRIPTION}`,
      }),
    ),
    ...PAGE_QUERY_FIELDS,
  },
  { additionalProperties: false },
);
export type ListOrdersV2Query = Static<typeof ListOrdersV2QuerySchema>;
export const LIST_ORDERS_V2_PARAMETERS: readonly string[] = Object.keys(ListOrdersV2QuerySchema.properties);

/** Marks the v2 operations in the OpenAPI document (spec section 9.4). */
export const BETA = { 'x-stability': 'beta' } as const;

export const ORDER_V2_EXAMPLES = [
  { id: 1001, status: 'pending', complete: false, petId: 42, quantity: 2, shipDate: '2026-12-01T10:00:00.000Z' },
  { id: 1002, status: 'cancelled', complete: false, petId: 7, quantity: 1 },
] as const;

const LINK_HEADER_DOCS = {
  Link: {
    type: 'string',
    maxLength: 2000,
    description:
      'Sent when nextCursor is not null: <path-absolute URL of the next page, with the same filters and limit>; rel="next".',
    examples: ['</v2/store/orders?status=pending&limit=2&cursor=eyJhIjoxLCJmIjoiIiwiayI6IjEwMDIifQ.c2lnbmF0dXJlLW9mLTE2Yg>; rel="next"'],
  },
} as const;

const ORDER_ID_400 = {
  code: 'validation_failed',
  message: `Path parameter orderId is not valid. Expected: ${ORDER_ID_DESCRIPTION}`,
} as const;

export const listOrdersV2Schema = {
  operationId: 'listOrdersV2',
  tags: ['orders'],
  ...BETA,
  summary: 'List orders, filtered and paged (beta)',
  description:
    "Returns the account's orders in any status, by id, one page at a time. Filters combine with AND. " +
    'The response carries a strong ETag; If-None-Match answers 304 while nothing listed has changed. ' +
    'A Link header with rel="next" points at the next page.',
  querystring: ListOrdersV2QuerySchema,
  headers: IfNoneMatchHeadersSchema,
  response: {
    200: Type.Object(OrdersPageSchema.properties, {
      title: 'OrdersPage',
      additionalProperties: false,
      description: ORDERS_PAGE_DESCRIPTION,
      examples: [{ data: ORDER_V2_EXAMPLES, nextCursor: 'eyJhIjoxLCJmIjoiIiwiayI6IjEwMDIifQ.c2lnbmF0dXJlLW9mLTE2Yg' }],
      headers: { ...VALIDATOR_HEADER_DOCS, ...LINK_HEADER_DOCS },
    }),
    304: NotModifiedResponseSchema,
    ...commonErrorResponses('orders:read'),
    400: errorResponse(
      'A query parameter is unknown, repeated, empty or malformed (validation_failed; the message names it and never repeats its value), ' +
        'or the cursor is not the nextCursor of this listing: altered, of another account or sent with other filters (invalid_cursor).',
      [
        { code: 'validation_failed', message: `Query parameter limit is not valid. Expected: ${PAGE_LIMIT_DESCRIPTION}` },
        INVALID_CURSOR_EXAMPLE,
      ],
    ),
  },
} as const;

export const getOrderV2Schema = {
  operationId: 'getOrderV2',
  tags: ['orders'],
  ...BETA,
  summary: 'Get one order (beta)',
  description: 'Returns an order of the account in any status, cancelled included.',
  params: OrderIdParamsSchema,
  response: {
    200: Type.Object(OrderV2Schema.properties, {
      title: 'OrderV2',
      additionalProperties: false,
      description: 'The order.',
      examples: [ORDER_V2_EXAMPLES[0]],
    }),
    ...commonErrorResponses('orders:read'),
    400: errorResponse('The orderId is not a decimal int64 (validation_failed).', ORDER_ID_400),
    404: errorResponse("No such order for this account; another account's order is not found either (order_not_found).", {
      code: 'order_not_found',
      message: 'Order 1001 was not found.',
    }),
  },
} as const;

export const cancelOrderV2Schema = {
  operationId: 'cancelOrderV2',
  tags: ['orders'],
  ...BETA,
  summary: 'Cancel an order (beta)',
  description:
    'Cancels a pending order. A shipped order cannot be cancelled (409 order_already_shipped); ' +
    'an order that is already cancelled gives 409 order_already_cancelled.',
  params: OrderIdParamsSchema,
  response: {
    204: Type.Null({ description: 'The order was pending and is now cancelled.' }),
    ...commonErrorResponses('orders:write'),
    400: errorResponse(
      'The orderId is not a decimal int64 (validation_failed), or the request has a body with a Content-Type other than JSON, or invalid JSON (malformed_request).',
      ORDER_ID_400,
    ),
    404: errorResponse("No such order for this account; another account's order is not found either (order_not_found).", {
      code: 'order_not_found',
      message: 'Order 1001 was not found.',
    }),
    409: errorResponse('The order has shipped (order_already_shipped) or is already cancelled (order_already_cancelled).', [
      { code: 'order_already_shipped', message: 'Order 1001 has already shipped and cannot be cancelled.' },
      { code: 'order_already_cancelled', message: 'Order 1001 is already cancelled.' },
    ]),
  },
} as const;
