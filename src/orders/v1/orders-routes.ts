import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { auditContextOf } from '../../api/http/audit-context.js';
import { principalOf } from '../../api/http/authentication.js';
import { notModified, sendNotModified, strongEtag } from '../../api/http/conditional-get.js';
import type { ListingResponses } from '../listing/listing-responses.js';
import type { OrdersService } from './orders-service.js';
import { cancelOrderSchema, listOrdersSchema } from '../orders-schemas.js';
import { JSON_CONTENT_TYPE } from '../../http/media-types.js';

/** The v1 listing: its path under /v1 and the scope it needs (the fast lane answers the same). */
export const V1_LISTING = { path: '/store/orders', scope: 'orders:read' } as const;

/** The v1 `orders` operations. Expects to be registered behind requireApiKey. */
export function registerOrdersRoutes(
  scope: FastifyInstance,
  { ordersService, listings }: { ordersService: OrdersService; listings: Pick<ListingResponses, 'openV1'> },
): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();

  // Registered without the type provider's serializer: the body is already
  // serialized from the same schema (listing/orders-serializers.ts), and
  // Fastify sends bytes and streams as they are. The schema still documents
  // the response.
  scope.get(V1_LISTING.path, { schema: listOrdersSchema, config: { scope: V1_LISTING.scope } }, async (request, reply) => {
    const listing = await listings.openV1(principalOf(request).accountId);
    // Answered from the validator alone: a 304 reads and serializes no order.
    if (notModified(request, reply, strongEtag(listing.validator))) return sendNotModified(reply);
    const body = await listing.body();
    if (request.method === 'HEAD' && body instanceof Readable) {
      // HEAD sends no body: a large listing is not read at all (its first
      // page was), and the headers stay those of the streamed GET.
      body.destroy();
      return reply.type(JSON_CONTENT_TYPE).send(Readable.from([]));
    }
    return reply.type(JSON_CONTENT_TYPE).send(body);
  });

  app.delete('/store/orders/:orderId', { schema: cancelOrderSchema, config: { scope: 'orders:write' } }, async (request, reply) => {
    await ordersService.cancelOrder(principalOf(request).accountId, request.params.orderId, auditContextOf(request));
    return reply.code(204).send(null);
  });
}
