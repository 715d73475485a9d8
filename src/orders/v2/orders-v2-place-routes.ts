import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { auditContextOf } from '../../api/http/audit-context.js';
import { principalOf } from '../../api/http/authentication.js';
import { idempotencyCompletion, idempotencyKeyHooks } from '../../api/http/idempotency-key.js';
import { parseJsonObject, requireJsonContentType } from '../../http/json-body.js';
import { IdempotencyClaimLost } from '../../idempotency/idempotency-repository.js';
import type { IdempotencyService } from '../../idempotency/idempotency-service.js';
import { int64Field, quoteInt64Fields } from '../import/order-lines.js';
import type { Order } from '../orders-repository.js';
import { PLACE_ORDER_BODY_EXAMPLE, PLACE_ORDER_BODY_LIMIT_BYTES, placeOrderSchema } from './orders-v2-place-schemas.js';
import { toOrderV2Record } from './orders-v2-routes.js';
import type { OrdersV2Service } from './orders-v2-service.js';

const locationOf = (order: Order) => `/v2/store/orders/${order.id.toString()}`;

/** POST /v2/store/orders (placeOrder, beta). Expects to be registered under /v2, behind requireApiKey. */
export async function registerPlaceOrderRoute(
  scope: FastifyInstance,
  { ordersV2Service, idempotency }: { ordersV2Service: OrdersV2Service; idempotency: IdempotencyService },
): Promise<void> {
  await scope.register(async (bodied) => {
    const app = bodied.withTypeProvider<TypeBoxTypeProvider>();
    // Only our strict JSON parser, which keeps petId's digits: every other media type is refused before its body is read.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: PLACE_ORDER_BODY_LIMIT_BYTES }, (_request, body, done) => {
      try {
        done(null, parseJsonObject(body as Buffer, PLACE_ORDER_BODY_EXAMPLE, quoteInt64Fields));
      } catch (error) {
        done(error as Error, undefined);
      }
    });
    const hooks = idempotencyKeyHooks(idempotency);
    app.post(
      '/store/orders',
      {
        schema: placeOrderSchema,
        config: { scope: 'orders:write', inputs: { idempotencyKey: ['headers', 'idempotency-key'] } },
        bodyLimit: PLACE_ORDER_BODY_LIMIT_BYTES,
        preParsing: async (request) => {
          requireJsonContentType(request);
        },
        preValidation: hooks.preValidation,
        onSend: hooks.onSend,
      },
      async (request, reply) => {
        const { petId, quantity, shipDate } = request.body;
        const input = { petId: int64Field(petId, 'petId'), quantity, ...(shipDate === undefined ? {} : { shipDate }) };
        // The response a replay repeats is the one sent: the route's own 201 serializer, the same headers.
        reply.code(201);
        const { completion, stored } = idempotencyCompletion(request, (order: Order) => ({
          status: 201,
          headers: { location: locationOf(order) },
          body: String(reply.serialize(toOrderV2Record(order))),
        }));
        let order: Order;
        try {
          order = await ordersV2Service.placeOrder(principalOf(request).accountId, input, completion, auditContextOf(request));
        } catch (error) {
          if (error instanceof IdempotencyClaimLost) throw idempotency.claimLost();
          throw error;
        }
        stored();
        return reply.header('location', locationOf(order)).send(toOrderV2Record(order));
      },
    );
  });
}
