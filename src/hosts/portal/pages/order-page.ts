import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { OrderHistoryEvent } from '../../../orders/history/order-history-service.js';
import { HISTORY_REQUESTS_MAX } from '../../../orders/history/order-history-service.js';
import { orderNotFound } from '../../../orders/order-status-changes.js';
import { parseInt64 } from '../../../shared/int64.js';
import type { EventDelivery } from '../../../webhooks/webhooks-repository.js';
import type { PortalContext } from '../portal-context.js';
import { formatInstant } from '../portal-format.js';
import { signedInUser } from '../portal-session.js';
import { logRow } from './logs-pages.js';

const OrderParams = Type.Object({ orderId: Type.String({ pattern: '^[1-9][0-9]{0,18}$' }) });

/** A delivery's last answer in words: the HTTP status and the error, or why there is none yet. */
function lastAnswer(delivery: EventDelivery): string {
  const parts = [delivery.statusCode === null ? '' : `HTTP ${delivery.statusCode}`, delivery.error ?? ''].filter((part) => part !== '');
  if (parts.length > 0) return parts.join(': ');
  return delivery.attempts === 0 ? 'not sent yet' : 'no answer';
}

function deliveryRow(delivery: EventDelivery) {
  return {
    href: `/webhooks/${delivery.endpointId}/deliveries/${delivery.id}`,
    endpointUrl: delivery.endpointUrl,
    status: delivery.status,
    attempts: `${delivery.attempts} attempt${delivery.attempts === 1 ? '' : 's'}`,
    answer: lastAnswer(delivery),
    when: delivery.lastAttemptAt ?? '',
    at: delivery.lastAttemptAt === null ? '—' : formatInstant(delivery.lastAttemptAt),
    nextRetry: delivery.nextAttemptAt === null ? '' : formatInstant(delivery.nextAttemptAt),
  };
}

function eventRow({ event, deliveries }: OrderHistoryEvent) {
  return { id: event.id, type: event.type, when: event.createdAt, at: formatInstant(event.createdAt), deliveries: deliveries.map(deliveryRow) };
}

/**
 * `/orders/:orderId` (signed in, every member): the order and its history
 * side by side, through the order history service: the requests whose path
 * named it (each opening its /logs page), its events, and each event's
 * deliveries to each webhook endpoint (status, attempts, last answer, each
 * opening the delivery's page). Another account's order, like a missing
 * one, is the 404 page.
 */
export function registerOrderPage(scope: FastifyInstance, { render, services }: PortalContext): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/orders/:orderId', { schema: { params: OrderParams } }, async (request, reply) => {
    const orderId = parseInt64(request.params.orderId);
    if (orderId === undefined) throw orderNotFound(BigInt(request.params.orderId));
    const { order, requests, moreRequests, events } = await services.orderHistory.history(signedInUser(request).user.accountId, orderId);
    return render(request, reply, 'order', {
      title: `Order ${order.id}`,
      order: {
        id: order.id.toString(),
        status: order.status,
        petId: order.petId?.toString() ?? '—',
        quantity: order.quantity ?? '—',
        shipDate: formatInstant(order.shipDate),
        complete: order.complete ? 'yes' : 'no',
        pending: order.status === 'pending',
      },
      requests: requests.map(logRow),
      moreRequests,
      requestsShown: HISTORY_REQUESTS_MAX,
      events: events.map(eventRow),
    });
  });
}
