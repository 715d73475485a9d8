import { Type } from 'typebox';
import { IfNoneMatchHeadersSchema, NotModifiedResponseSchema, VALIDATOR_HEADER_DOCS } from '../api/http/conditional-get.js';
import { commonErrorResponses, errorResponse } from '../api/http/error-responses.js';
import { Int64Parameter } from '../api/http/int64-parameter.js';
import { QUANTITY_MAX } from './new-order.js';

/**
 * An int64 carried as bigint in code and written as a plain JSON number with
 * every digit on the wire.
 */
const Int64 = (description: string) => Type.Unsafe<bigint>({ type: 'integer', format: 'int64', description });

/** The fields of an Order record, shared by every API version (v2 adds `status`). */
export const ORDER_FIELDS = {
  id: Int64('Unique order identifier.'),
  petId: Int64('Identifier of the animal in this order.'),
  quantity: Type.Integer({ format: 'int32', minimum: 1, maximum: QUANTITY_MAX, description: 'Number of units ordered.' }),
  shipDate: Type.String({ format: 'date-time', maxLength: 35, description: 'Expected or actual ship date, ISO 8601 in UTC.' }),
  complete: Type.Boolean({ description: 'Whether the order has been fulfilled.' }),
};

/** The v1 Order record: exactly the five documented fields, none required. */
export const OrderSchema = Type.Object(
  {
    id: Type.Optional(ORDER_FIELDS.id),
    petId: Type.Optional(ORDER_FIELDS.petId),
    quantity: Type.Optional(ORDER_FIELDS.quantity),
    shipDate: Type.Optional(ORDER_FIELDS.shipDate),
    complete: Type.Optional(ORDER_FIELDS.complete),
  },
  { title: 'Order', additionalProperties: false },
);

export const ORDER_ID_DESCRIPTION =
  "the order's identifier, a decimal int64 (-9223372036854775808 to 9223372036854775807) without leading zeros or a plus sign.";

export const OrderIdParamsSchema = Type.Object({
  orderId: Int64Parameter(ORDER_ID_DESCRIPTION),
});

const ORDER_EXAMPLE = {
  id: 1001,
  petId: 42,
  quantity: 2,
  shipDate: '2026-12-01T10:00:00.000Z',
  complete: false,
};

export const listOrdersSchema = {
  operationId: 'listOrders',
  tags: ['orders'],
  'x-stability': 'stable',
  summary: 'List every order',
  description:
    "Returns all of the account's orders that have not been cancelled, ordered by id, in one response. " +
    'The response carries a strong ETag; If-None-Match answers 304 while nothing listed has changed.',
  headers: IfNoneMatchHeadersSchema,
  response: {
    200: Type.Array(OrderSchema, { description: 'The orders.', examples: [[ORDER_EXAMPLE]], headers: VALIDATOR_HEADER_DOCS }),
    304: NotModifiedResponseSchema,
    ...commonErrorResponses('orders:read'),
  },
} as const;

export const cancelOrderSchema = {
  operationId: 'cancelOrder',
  tags: ['orders'],
  'x-stability': 'stable',
  summary: 'Cancel an order',
  description: 'Cancels a pending order. Shipped orders cannot be cancelled.',
  params: OrderIdParamsSchema,
  response: {
    204: Type.Null({ description: 'The order was pending and is now cancelled.' }),
    ...commonErrorResponses('orders:write'),
    400: errorResponse('The orderId is not a decimal int64 (validation_failed), or the request has a body with a Content-Type other than JSON, or invalid JSON (malformed_request).', {
      code: 'validation_failed',
      message: `Path parameter orderId is not valid. Expected: ${ORDER_ID_DESCRIPTION}`,
    }),
    404: errorResponse('No such order for this account; a cancelled order is not found either (order_not_found).', {
      code: 'order_not_found',
      message: 'Order 1001 was not found.',
    }),
    409: errorResponse('The order has already shipped and cannot be cancelled (order_already_shipped).', {
      code: 'order_already_shipped',
      message: 'Order 1001 has already shipped and cannot be cancelled.',
    }),
  },
} as const;
