import { Type } from 'typebox';
import { commonErrorResponses, errorResponse } from '../../api/http/error-responses.js';
import { documentedAs } from '../../openapi/openapi-document.js';
import { IDEMPOTENCY_KEY_DESCRIPTION, IDEMPOTENCY_KEY_MAX_LENGTH } from '../../idempotency/idempotency-service.js';
import { ORDER_FIELDS } from '../orders-schemas.js';
import { BETA, ORDER_V2_EXAMPLES, OrderV2Schema, SHIP_DATE_DESCRIPTION } from './orders-v2-schemas.js';

/** The largest request body placeOrder reads (413 beyond). */
export const PLACE_ORDER_BODY_LIMIT_BYTES = 4 * 1024;

export const PLACE_ORDER_BODY_EXAMPLE = '{"petId": 42, "quantity": 2}';

/**
 * petId arrives as text: the body parser quotes a bare integer petId before
 * JSON.parse (which would round it past 2^53), and the service parses it
 * exactly; the document shows it as the int64 it is on the wire.
 */
const PlaceOrderBodySchema = Type.Object(
  {
    petId: documentedAs(Type.String({ maxLength: 32, description: 'The pet ordered: an int64, sent as a JSON number with every digit.' }), {
      type: 'integer',
      format: 'int64',
      description: 'The pet ordered: an int64, sent as a JSON number with every digit.',
    }),
    quantity: ORDER_FIELDS.quantity,
    shipDate: Type.Optional(Type.String({ format: 'date-time', maxLength: 64, description: `When to ship: ${SHIP_DATE_DESCRIPTION}` })),
  },
  { title: 'PlaceOrderRequest', additionalProperties: false, examples: [{ petId: 42, quantity: 2, shipDate: '2026-12-01T10:00:00Z' }] },
);

const IdempotencyKeyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      maxLength: IDEMPOTENCY_KEY_MAX_LENGTH,
      examples: ['6f1c2a4e-9b7d-4c55-8e0e-3d2b1a0f9c87'],
      description:
        `Optional, ${IDEMPOTENCY_KEY_DESCRIPTION}; a UUID works well. Scoped to the account. The first response (errors included, except 5xx and 429) ` +
        'is kept for 24 hours and replayed, with Idempotent-Replayed: true, to a repeat with the same key and body; the same key with another body is 422.',
    }),
  ),
});

const ID_EXAMPLE = ORDER_V2_EXAMPLES[0].id;

export const placeOrderSchema = {
  operationId: 'placeOrder',
  tags: ['orders'],
  ...BETA,
  summary: 'Place an order (beta)',
  description:
    'Places a pending order and writes its order.created event in the same transaction. Requires Content-Type: application/json. ' +
    'Send an Idempotency-Key to retry safely: a repeat never places a second order.',
  headers: IdempotencyKeyHeaders,
  body: PlaceOrderBodySchema,
  response: {
    201: Type.Object(OrderV2Schema.properties, {
      title: 'OrderV2',
      additionalProperties: false,
      description: 'Placed, pending. Location names the order.',
      examples: [ORDER_V2_EXAMPLES[0]],
      headers: {
        Location: { type: 'string', maxLength: 100, description: 'The order: /v2/store/orders/{orderId}.', examples: [`/v2/store/orders/${ID_EXAMPLE}`] },
        'Idempotent-Replayed': {
          type: 'string',
          enum: ['true'],
          maxLength: 4,
          description: 'Present when this is the replayed first response to an earlier request with the same Idempotency-Key.',
        },
      },
    }),
    ...commonErrorResponses('orders:write'),
    400: errorResponse(
      'The body is missing, not JSON or not an object (malformed_request, content_type_not_json); a field is missing, unknown or out of range, ' +
        `petId is not an int64, shipDate is not a date-time with a zone, or the Idempotency-Key is not ${IDEMPOTENCY_KEY_DESCRIPTION} (validation_failed).`,
      [
        { code: 'validation_failed', message: 'Request body field quantity is not valid. Expected: Number of units ordered.' },
        { code: 'content_type_not_json', message: 'The Content-Type must be application/json.' },
      ],
    ),
    409: errorResponse('A request with this Idempotency-Key is still in progress (idempotency_key_in_use); retry after Retry-After.', {
      code: 'idempotency_key_in_use',
      message: 'A request with this Idempotency-Key is still in progress; retry after it has finished.',
    }, { 'Retry-After': { type: 'string', maxLength: 10, description: 'Seconds to wait before retrying.', examples: ['1'] } }),
    413: errorResponse(`The body is over ${PLACE_ORDER_BODY_LIMIT_BYTES} bytes (payload_too_large).`, {
      code: 'payload_too_large',
      message: 'The request body is larger than this endpoint accepts.',
    }),
    422: errorResponse('The Idempotency-Key was used in the last 24 hours with a different body (idempotency_key_reused).', {
      code: 'idempotency_key_reused',
      message: 'This Idempotency-Key was already used with a different request in the last 24 hours; use a new key for a new request.',
    }),
  },
} as const;
