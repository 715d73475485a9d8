import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ValidationError } from '../../errors/errors.js';
import { auditContextOf } from '../../api/http/audit-context.js';
import { principalOf } from '../../api/http/authentication.js';
import { notModified, sendNotModified, strongEtag } from '../../api/http/conditional-get.js';
import { invalidParameterMessage, refuseUnknownParameters } from '../../api/http/validation-errors.js';
import { normalizeDateTime } from '../../shared/date-time.js';
import type { ListingResponses } from '../listing/listing-responses.js';
import type { Order, OrderFilter, OrderStatus } from '../orders-repository.js';
import {
  cancelOrderV2Schema,
  getOrderV2Schema,
  LIST_ORDERS_V2_PARAMETERS,
  listOrdersV2Schema,
  SHIP_DATE_DESCRIPTION,
  type ListOrdersV2Query,
  type OrderV2Record,
} from './orders-v2-schemas.js';
import { PAGE_LIMIT_DEFAULT } from '../../api/page-bounds.js';
import type { ListOrdersV2Request, OrdersV2Service } from './orders-v2-service.js';
import { JSON_CONTENT_TYPE } from '../../http/media-types.js';

const LISTING_PATH = '/v2/store/orders';

/** The v2 (beta) `orders` operations. Expects to be registered under /v2, behind requireApiKey. */
export function registerOrdersV2Routes(
  scope: FastifyInstance,
  { ordersV2Service, listings }: { ordersV2Service: OrdersV2Service; listings: Pick<ListingResponses, 'v2Page'> },
): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/store/orders',
    {
      schema: listOrdersV2Schema,
      config: { scope: 'orders:read', inputs: { cursor: ['querystring', 'cursor'], limit: ['querystring', 'limit'] } },
      // Before validation: the validator silently drops unknown parameters.
      preValidation: refuseUnknownParameters(LIST_ORDERS_V2_PARAMETERS),
    },
    async (request, reply) => {
      const listing = await ordersV2Service.openListing(principalOf(request).accountId, parseListQuery(request.query));
      if (notModified(request, reply, strongEtag(listing.validator))) return sendNotModified(reply);
      // Kept under the validator and the exact query, which shapes the Link.
      const page = await listings.v2Page(listing.accountId, listing.validator, request.url, async () => {
        const read = await ordersV2Service.readPage(listing);
        // The route's own response serializer: the bytes are what returning the record would send.
        return {
          body: Buffer.from(String(reply.serialize({ data: read.orders.map(toOrderV2Record), nextCursor: read.nextCursor }))),
          link: read.nextCursor === null ? undefined : `<${nextPageUrl(listing.filter, request.query.limit, read.nextCursor)}>; rel="next"`,
        };
      });
      if (page.link !== undefined) reply.header('link', page.link);
      // Already serialized: sent through the untyped reply, as bytes.
      const untyped: FastifyReply = reply;
      return untyped.type(JSON_CONTENT_TYPE).send(page.body);
    },
  );

  app.get('/store/orders/:orderId', { schema: getOrderV2Schema, config: { scope: 'orders:read' } }, async (request) => {
    const order = await ordersV2Service.getOrder(principalOf(request).accountId, request.params.orderId);
    return toOrderV2Record(order);
  });

  app.delete('/store/orders/:orderId', { schema: cancelOrderV2Schema, config: { scope: 'orders:write' } }, async (request, reply) => {
    await ordersV2Service.cancelOrder(principalOf(request).accountId, request.params.orderId, auditContextOf(request));
    return reply.code(204).send(null);
  });
}

/** The stored order minus what the wire never shows (the owning account). */
export function toOrderV2Record(order: Order): OrderV2Record {
  const record: OrderV2Record = { id: order.id, status: order.status, complete: order.complete };
  if (order.petId !== undefined) record.petId = order.petId;
  if (order.quantity !== undefined) record.quantity = order.quantity;
  if (order.shipDate !== undefined) record.shipDate = order.shipDate;
  return record;
}

/**
 * Turns the schema-checked query strings into typed filters, exactly: int64
 * through BigInt, instants normalised to UTC. Each refusal names its parameter.
 */
function parseListQuery(query: ListOrdersV2Query): ListOrdersV2Request {
  const invalid = (name: string, expected: string) => new ValidationError(invalidParameterMessage('querystring', name, expected));
  const filter: OrderFilter = {};
  if (query.status !== undefined && query.status.length > 0) filter.statuses = query.status as OrderStatus[];
  if (query.petId !== undefined) filter.petId = query.petId;
  if (query.complete !== undefined) filter.complete = query.complete === 'true';
  for (const name of ['shipDateFrom', 'shipDateTo'] as const) {
    const text = query[name];
    if (text === undefined) continue;
    const instant = normalizeDateTime(text);
    if (instant === undefined) throw invalid(name, SHIP_DATE_DESCRIPTION);
    filter[name] = instant;
  }
  if (filter.shipDateFrom !== undefined && filter.shipDateTo !== undefined && filter.shipDateFrom > filter.shipDateTo) {
    throw new ValidationError('Query parameter shipDateTo is not valid: it must not be earlier than shipDateFrom.');
  }
  // The schema checked the shape; the service checks the range.
  const limit = query.limit === undefined ? PAGE_LIMIT_DEFAULT : Number(query.limit);
  return { filter, limit, cursor: query.cursor };
}

/** The next page's URL: the same filters (normalised) and limit, and the cursor. */
function nextPageUrl(filter: OrderFilter, limit: string | undefined, cursor: string): string {
  const params = new URLSearchParams();
  for (const status of filter.statuses ?? []) params.append('status', status);
  if (filter.petId !== undefined) params.set('petId', filter.petId.toString());
  if (filter.complete !== undefined) params.set('complete', String(filter.complete));
  if (filter.shipDateFrom !== undefined) params.set('shipDateFrom', filter.shipDateFrom);
  if (filter.shipDateTo !== undefined) params.set('shipDateTo', filter.shipDateTo);
  if (limit !== undefined) params.set('limit', limit);
  params.set('cursor', cursor);
  return `${LISTING_PATH}?${params.toString()}`;
}
