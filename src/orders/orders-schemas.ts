import { Type, type Static } from 'typebox';
import { ErrorRecordSchema } from '../http/error-schema.js';
import { INT64_DECIMAL_PATTERN } from '../shared/int64.js';

/**
 * An int64 carried as bigint in code and written as a plain JSON number with
 * every digit on the wire.
 */
const Int64 = (description: string) => Type.Unsafe<bigint>({ type: 'integer', format: 'int64', description });

/** The v1 Order record: exactly the five documented fields, none required. */
export const OrderSchema = Type.Object(
  {
    id: Type.Optional(Int64('Unique order identifier.')),
    petId: Type.Optional(Int64('Identifier of the animal in this order.')),
    quantity: Type.Optional(Type.Integer({ description: 'Number of units ordered.' })),
    shipDate: Type.Optional(
      Type.String({ format: 'date-time', description: 'Expected or actual ship date, ISO 8601 in UTC.' }),
    ),
    complete: Type.Optional(Type.Boolean({ description: 'Whether the order has been fulfilled.' })),
  },
  { title: 'Order', additionalProperties: false },
);
export type OrderRecord = Static<typeof OrderSchema>;

export const ORDER_ID_DESCRIPTION =
  "the order's identifier, a decimal int64 (-9223372036854775808 to 9223372036854775807) without leading zeros or a plus sign.";

export const OrderIdParamsSchema = Type.Object({
  orderId: Type.String({
    // Shape only; the int64 range is checked when parsing (see parseInt64).
    pattern: INT64_DECIMAL_PATTERN,
    description: ORDER_ID_DESCRIPTION,
  }),
});

/**
 * What every protected operation can also answer (hardening): 403 key lacks
 * the route's scope, 429 rate limited (Retry-After, RateLimit headers), 503
 * overloaded or shutting down (Retry-After).
 */
const GUARD_RESPONSES = { 403: ErrorRecordSchema, 429: ErrorRecordSchema, 503: ErrorRecordSchema } as const;

export const listOrdersSchema = {
  operationId: 'listOrders',
  tags: ['orders'],
  summary: 'List every order',
  description:
    "Returns all of the account's orders that have not been cancelled, ordered by id, in one response. " +
    'The response carries a strong ETag; If-None-Match answers 304 while nothing listed has changed.',
  headers: Type.Object({
    'if-none-match': Type.Optional(
      Type.String({ description: 'ETags of listings the client holds; a match (or *) answers 304 with no body.' }),
    ),
  }),
  response: {
    200: Type.Array(OrderSchema, { description: 'The orders.' }),
    304: Type.Null({ description: 'The listing has not changed since the ETag the client sent; no body.' }),
    401: ErrorRecordSchema,
    ...GUARD_RESPONSES,
  },
} as const;

export const cancelOrderSchema = {
  operationId: 'cancelOrder',
  tags: ['orders'],
  summary: 'Cancel an order',
  description: 'Cancels a pending order. Shipped orders cannot be cancelled.',
  params: OrderIdParamsSchema,
  response: {
    204: Type.Null({ description: 'The order was pending and is now cancelled.' }),
    400: ErrorRecordSchema,
    401: ErrorRecordSchema,
    404: ErrorRecordSchema,
    409: ErrorRecordSchema,
    ...GUARD_RESPONSES,
  },
} as const;
