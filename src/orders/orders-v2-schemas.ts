import { Type, type Static } from 'typebox';
import { ErrorRecordSchema } from '../http/error-schema.js';
import { INT64_DECIMAL_PATTERN } from '../shared/int64.js';
import { ORDER_STATUSES } from './orders-repository.js';
import { ORDER_ID_DESCRIPTION, OrderIdParamsSchema } from './orders-schemas.js';
import { V2_LIMIT_DEFAULT, V2_LIMIT_MAX } from './orders-v2-service.js';

const Int64 = (description: string) => Type.Unsafe<bigint>({ type: 'integer', format: 'int64', description });

/** The v2 Order record: v1's fields plus `status`; id, complete and status are always present. */
export const OrderV2Schema = Type.Object(
  {
    // The always-present fields first: it is the order the serializer writes.
    id: Int64('Unique order identifier.'),
    status: Type.String({ enum: [...ORDER_STATUSES], description: 'pending, shipped or cancelled.' }),
    complete: Type.Boolean({ description: 'Whether the order has been fulfilled.' }),
    petId: Type.Optional(Int64('Identifier of the animal in this order.')),
    quantity: Type.Optional(Type.Integer({ description: 'Number of units ordered.' })),
    shipDate: Type.Optional(Type.String({ format: 'date-time', description: 'Expected or actual ship date, ISO 8601 in UTC.' })),
  },
  { title: 'OrderV2', additionalProperties: false },
);
export type OrderV2Record = Static<typeof OrderV2Schema>;

export const ORDERS_PAGE_DESCRIPTION =
  'One page of orders by id. nextCursor is null on the last page; otherwise pass it as cursor, with the same filters, for the next.';

export const OrdersPageSchema = Type.Object(
  {
    data: Type.Array(OrderV2Schema, { description: 'The orders of this page, by id.' }),
    nextCursor: Type.Union([Type.String(), Type.Null()], {
      description: 'Opaque cursor of the next page, or null when this page is the last.',
    }),
  },
  { title: 'OrdersPage', additionalProperties: false, description: ORDERS_PAGE_DESCRIPTION },
);

export const SHIP_DATE_DESCRIPTION = 'an ISO 8601 date-time with a time zone, e.g. 2026-12-01T10:00:00Z.';
export const LIMIT_DESCRIPTION = `an integer from 1 to ${V2_LIMIT_MAX} (default ${V2_LIMIT_DEFAULT}).`;

/**
 * Every value is a string on purpose: Fastify's validator would otherwise
 * coerce `petId` through a JS number and lose int64 digits. The route parses
 * each value exactly (see parseListQuery).
 */
export const ListOrdersV2QuerySchema = Type.Object(
  {
    status: Type.Optional(
      Type.Array(Type.String({ enum: [...ORDER_STATUSES], description: 'one of pending, shipped, cancelled, each at most once.' }), {
        uniqueItems: true,
        description: 'Only orders in one of these statuses; repeat the parameter for several. Default: any status.',
      }),
    ),
    petId: Type.Optional(
      Type.String({ pattern: INT64_DECIMAL_PATTERN, description: `only orders for this pet: ${ORDER_ID_DESCRIPTION.replace("the order's identifier, ", '')}` }),
    ),
    complete: Type.Optional(Type.String({ enum: ['true', 'false'], description: 'true or false.' })),
    shipDateFrom: Type.Optional(
      Type.String({ format: 'date-time', maxLength: 64, description: `only orders shipping at or after this instant: ${SHIP_DATE_DESCRIPTION}` }),
    ),
    shipDateTo: Type.Optional(
      Type.String({ format: 'date-time', maxLength: 64, description: `only orders shipping before this instant: ${SHIP_DATE_DESCRIPTION}` }),
    ),
    limit: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,3}$', description: LIMIT_DESCRIPTION })),
    cursor: Type.Optional(
      Type.String({ minLength: 1, maxLength: 512, description: 'the nextCursor of the previous page, unchanged.' }),
    ),
  },
  { additionalProperties: false },
);
export type ListOrdersV2Query = Static<typeof ListOrdersV2QuerySchema>;
export const LIST_ORDERS_V2_PARAMETERS: readonly string[] = Object.keys(ListOrdersV2QuerySchema.properties);

const IfNoneMatchHeaders = Type.Object({
  'if-none-match': Type.Optional(
    Type.String({ description: 'ETags of listings the client holds; a match (or *) answers 304 with no body.' }),
  ),
});

const NotModified = Type.Null({ description: 'The listing has not changed since the ETag the client sent; no body.' });

/** Marks the v2 operations in the OpenAPI document (spec section 9.4). */
const BETA = { 'x-stability': 'beta' } as const;

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
  headers: IfNoneMatchHeaders,
  response: {
    200: OrdersPageSchema,
    304: NotModified,
    400: ErrorRecordSchema,
    401: ErrorRecordSchema,
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
    200: OrderV2Schema,
    400: ErrorRecordSchema,
    401: ErrorRecordSchema,
    404: ErrorRecordSchema,
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
    400: ErrorRecordSchema,
    401: ErrorRecordSchema,
    404: ErrorRecordSchema,
    409: ErrorRecordSchema,
  },
} as const;
