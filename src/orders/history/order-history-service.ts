import { orderSubject } from '../../events/event-records.js';
import type { StoredEvent, EventsRepository } from '../../events/events-repository.js';
import type { RequestLog, RequestLogsRepository } from '../../request-logs/request-logs-repository.js';
import type { EventDelivery, WebhooksRepository } from '../../webhooks/webhooks-repository.js';
import type { Order, OrdersRepository } from '../orders-repository.js';
import { orderNotFound } from '../order-status-changes.js';

/** The newest requests an order's history shows; older ones are in the Logs page. */
export const HISTORY_REQUESTS_MAX = 50;
/** An order has a handful of events (created, cancelled or shipped); the bound only keeps one read bounded. */
const HISTORY_EVENTS_MAX = 100;
/** Deliveries read for those events at most: every endpoint, redeliveries included. */
const HISTORY_DELIVERIES_MAX = 1000;

/** One of the order's events with its deliveries, each to one of the account's endpoints, oldest first. */
export interface OrderHistoryEvent {
  event: StoredEvent;
  deliveries: EventDelivery[];
}

/** An order and what happened to it, side by side. */
export interface OrderHistory {
  order: Order;
  /** The requests whose path names the order, newest first, at most HISTORY_REQUESTS_MAX. */
  requests: RequestLog[];
  /** Whether older such requests exist beyond those. */
  moreRequests: boolean;
  /** Its events, oldest first (the feed's order), each with its deliveries. */
  events: OrderHistoryEvent[];
}

/**
 * An order's history (issue 28): the order, the requests to the API that
 * named it (its request logs, kept REQUEST_LOG_RETENTION_DAYS), its events
 * (the feed's, subject `order:<id>`, kept EVENT_RETENTION_DAYS) and each
 * event's webhook deliveries. Only the account's own order is found: another
 * account's is `order_not_found`, exactly like a missing one.
 */
export function createOrderHistoryService({
  ordersRepository,
  requestLogsRepository,
  eventsRepository,
  webhooksRepository,
}: {
  ordersRepository: Pick<OrdersRepository, 'findById'>;
  requestLogsRepository: Pick<RequestLogsRepository, 'listForOrder'>;
  eventsRepository: Pick<EventsRepository, 'listPage'>;
  webhooksRepository: Pick<WebhooksRepository, 'listEventDeliveries'>;
}) {
  return {
    async history(accountId: number, orderId: bigint): Promise<OrderHistory> {
      const order = await ordersRepository.findById(orderId);
      if (order === undefined || order.accountId !== accountId) throw orderNotFound(orderId);
      const [requests, events] = await Promise.all([
        requestLogsRepository.listForOrder({ accountId, orderId, limit: HISTORY_REQUESTS_MAX + 1 }),
        eventsRepository.listPage({ accountId, filter: { subject: orderSubject(orderId) }, afterPosition: 0n, limit: HISTORY_EVENTS_MAX }),
      ]);
      const deliveries = await webhooksRepository.listEventDeliveries(
        accountId,
        events.map((event) => event.id),
        HISTORY_DELIVERIES_MAX,
      );
      return {
        order,
        requests: requests.slice(0, HISTORY_REQUESTS_MAX),
        moreRequests: requests.length > HISTORY_REQUESTS_MAX,
        events: events.map((event) => ({ event, deliveries: deliveries.filter((delivery) => delivery.eventId === event.id) })),
      };
    },
  };
}

export type OrderHistoryService = ReturnType<typeof createOrderHistoryService>;
