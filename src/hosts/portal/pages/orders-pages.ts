import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from 'typebox';
import { AppError, ConflictError, NotFoundError } from '../../../errors/errors.js';
import { ORDER_STATUSES, type Order, type OrderFilter, type OrderStatus } from '../../../orders/orders-repository.js';
import type { PlaceOrderInput } from '../../../orders/v2/orders-v2-service.js';
import { portalAuditContext } from '../portal-audit.js';
import type { PortalContext } from '../portal-context.js';
import { csrfField, formField } from '../portal-context.js';
import { formatInstant } from '../portal-format.js';
import { signedInUser } from '../portal-session.js';

/** Orders per portal page: a screenful. */
const PAGE_SIZE = 20;
const INT64_MAX = 9_223_372_036_854_775_807n;

const text = (maxLength: number) => Type.Optional(Type.String({ maxLength }));
const OrdersQuery = Type.Object({
  status: text(20),
  petId: text(40),
  shipDateFrom: text(40),
  shipDateTo: text(40),
  cursor: text(1000),
  cancelled: text(25),
  shipped: text(25),
  placed: text(25),
});
type OrdersQuery = Static<typeof OrdersQuery>;
const OrderParams = Type.Object({ orderId: Type.String({ pattern: '^[0-9]{1,19}$' }) });
const EmptyForm = Type.Object({ _csrf: csrfField });
const PlaceForm = Type.Object({ _csrf: csrfField, petId: formField(), quantity: formField(), shipDate: Type.Optional(formField()) });
type PlaceForm = Static<typeof PlaceForm>;
const EMPTY_PLACE_FORM = { petId: '', quantity: '1', shipDate: '' };

/** Bad form input (a filter or a test order), said the way the form names it. */
class FormProblem extends Error {}

function positiveId(value: string, label: string): bigint {
  if (!/^[0-9]{1,19}$/.test(value) || BigInt(value) < 1n || BigInt(value) > INT64_MAX) throw new FormProblem(`${label} must be a whole number from 1 to ${INT64_MAX}.`);
  return BigInt(value);
}

/** A date field (YYYY-MM-DD, as <input type="date"> sends it) as the instant that day starts, UTC. */
function dayStart(value: string, label: string): number {
  const time = /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00.000Z`) : Number.NaN;
  if (Number.isNaN(time) || new Date(time).toISOString().slice(0, 10) !== value) throw new FormProblem(`${label} must be a date such as 2026-12-01.`);
  return time;
}

/**
 * The test order form as placeOrder takes it. Quantity's range is the
 * service's rule (it answers with its own message); the ship date is the
 * start of that day, UTC.
 */
function placeInputOf(form: PlaceForm): PlaceOrderInput {
  const quantity = form.quantity.trim();
  const shipDate = (form.shipDate ?? '').trim();
  return {
    petId: positiveId(form.petId.trim(), 'Pet ID'),
    quantity: /^[0-9]{1,10}$/.test(quantity) ? Number(quantity) : Number.NaN,
    ...(shipDate === '' ? {} : { shipDate: new Date(dayStart(shipDate, 'Ship date')).toISOString() }),
  };
}

/** The form's filters as the v2 service takes them; "Ship date to" includes that whole day. */
function filterOf(query: OrdersQuery): OrderFilter {
  const filter: { statuses?: OrderStatus[]; petId?: bigint; shipDateFrom?: string; shipDateTo?: string } = {};
  const status = query.status ?? '';
  if (status !== '') {
    const known = ORDER_STATUSES.find((candidate) => candidate === status);
    if (known === undefined) throw new FormProblem(`Status must be one of ${ORDER_STATUSES.join(', ')}.`);
    filter.statuses = [known];
  }
  if ((query.petId ?? '').trim() !== '') filter.petId = positiveId((query.petId ?? '').trim(), 'Pet ID');
  const from = query.shipDateFrom ?? '';
  const to = query.shipDateTo ?? '';
  if (from !== '') filter.shipDateFrom = new Date(dayStart(from, 'Ship date from')).toISOString();
  if (to !== '') filter.shipDateTo = new Date(dayStart(to, 'Ship date to') + 86_400_000).toISOString();
  if (filter.shipDateFrom !== undefined && filter.shipDateTo !== undefined && filter.shipDateFrom >= filter.shipDateTo) {
    throw new FormProblem('Ship date to must not be earlier than Ship date from.');
  }
  return filter;
}

function orderRow(order: Order) {
  return {
    id: order.id.toString(),
    petId: order.petId?.toString() ?? '—',
    quantity: order.quantity ?? '—',
    shipDate: formatInstant(order.shipDate),
    status: order.status,
    pending: order.status === 'pending',
  };
}

/**
 * `/orders` (signed in): the account's orders through the v2 service,
 * filtered by a GET form and paged by its signed cursor; a pending order can
 * be cancelled (after a confirmation step) or marked shipped. A conflict
 * (already shipped or cancelled) is a 409 page that says why.
 */
export function registerOrdersPages(scope: FastifyInstance, { render, services }: PortalContext): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const { ordersV2 } = services;

  /** The orders page; `placed` (an order just placed) is listed even when it is not on this page. */
  async function showOrders(request: FastifyRequest, reply: FastifyReply, query: OrdersQuery, extra: Record<string, unknown> = {}, status = 200) {
    const { user } = signedInUser(request);
    const form = { status: query.status ?? '', petId: query.petId ?? '', shipDateFrom: query.shipDateFrom ?? '', shipDateTo: query.shipDateTo ?? '' };
    const data = { title: 'Orders', form, statuses: ORDER_STATUSES, notice: noticeOf(query), place: EMPTY_PLACE_FORM, ...extra };
    let filter: OrderFilter;
    try {
      filter = filterOf(query);
    } catch (error) {
      if (!(error instanceof FormProblem)) throw error;
      return render(request, reply, 'orders', { ...data, orders: [], error: error.message }, 400);
    }
    try {
      const listing = await ordersV2.openListing(user.accountId, { filter, limit: PAGE_SIZE, ...(query.cursor === undefined || query.cursor === '' ? {} : { cursor: query.cursor }) });
      const page = await ordersV2.readPage(listing);
      const orders = [...(await placedOrder(user.accountId, query.placed, page.orders)), ...page.orders];
      const notice = orders.some((order) => order.id.toString() === query.placed) ? `Order ${query.placed} was placed.` : data.notice;
      const next = page.nextCursor === null ? undefined : `/orders?${new URLSearchParams({ ...form, cursor: page.nextCursor }).toString()}`;
      return render(request, reply, 'orders', { ...data, notice, orders: orders.map(orderRow), next, paged: query.cursor !== undefined }, status);
    } catch (error) {
      if (!(error instanceof AppError) || error.status !== 400) throw error;
      const message = error.code === 'invalid_cursor' ? 'That page link is not valid any more. Start again from the first page.' : error.message;
      return render(request, reply, 'orders', { ...data, orders: [], error: message }, 400);
    }
  }

  /** The order just placed, when it is the account's and not on the page already. */
  async function placedOrder(accountId: number, placed: string | undefined, listed: Order[]): Promise<Order[]> {
    if (placed === undefined || !/^[0-9]{1,19}$/.test(placed) || BigInt(placed) > INT64_MAX || listed.some((order) => order.id === BigInt(placed))) return [];
    try {
      return [await ordersV2.getOrder(accountId, BigInt(placed))];
    } catch (error) {
      if (error instanceof NotFoundError) return [];
      throw error;
    }
  }

  app.get('/orders', { schema: { querystring: OrdersQuery } }, async (request, reply) => showOrders(request, reply, request.query));

  // A test order goes through placeOrder, the service behind POST /v2/store/orders, with the user and address for its audit entry.
  app.post('/orders', { schema: { body: PlaceForm } }, async (request, reply) => {
    const place = { petId: request.body.petId, quantity: request.body.quantity, shipDate: request.body.shipDate ?? '' };
    let order: Order;
    try {
      order = await ordersV2.placeOrder(signedInUser(request).user.accountId, placeInputOf(request.body), undefined, portalAuditContext(request));
    } catch (error) {
      if (!(error instanceof FormProblem) && !(error instanceof AppError && error.status === 400)) throw error;
      return showOrders(request, reply, {}, { place, placeError: error.message }, 400);
    }
    return reply.redirect(`/orders?placed=${order.id}`, 303);
  });

  app.get('/orders/:orderId/cancel', { schema: { params: OrderParams } }, async (request, reply) => {
    const order = await ordersV2.getOrder(signedInUser(request).user.accountId, BigInt(request.params.orderId));
    if (order.status !== 'pending') return conflictPage(request, reply, order.id, `Order ${order.id} is ${order.status} and cannot be cancelled.`);
    return render(request, reply, 'order-cancel', { title: 'Cancel an order', order: orderRow(order) });
  });

  app.post('/orders/:orderId/cancel', { schema: { params: OrderParams, body: EmptyForm } }, async (request, reply) => {
    const orderId = BigInt(request.params.orderId);
    try {
      await ordersV2.cancelOrder(signedInUser(request).user.accountId, orderId, portalAuditContext(request));
    } catch (error) {
      if (error instanceof ConflictError) return conflictPage(request, reply, orderId, error.message);
      throw error;
    }
    return reply.redirect(`/orders?cancelled=${orderId}`, 303);
  });

  app.post('/orders/:orderId/ship', { schema: { params: OrderParams, body: EmptyForm } }, async (request, reply) => {
    const orderId = BigInt(request.params.orderId);
    // The operator's shipOrder takes any order: the account's ownership is checked first (an order never changes account).
    await ordersV2.getOrder(signedInUser(request).user.accountId, orderId);
    try {
      await services.orderOperations.shipOrder(orderId, portalAuditContext(request));
    } catch (error) {
      if (error instanceof ConflictError) return conflictPage(request, reply, orderId, error.message);
      throw error;
    }
    return reply.redirect(`/orders?shipped=${orderId}`, 303);
  });

  function conflictPage(request: FastifyRequest, reply: FastifyReply, orderId: bigint, reason: string) {
    return render(request, reply, 'order-conflict', { title: `Order ${orderId} could not be changed`, reason }, 409);
  }
}

function noticeOf(query: OrdersQuery): string | undefined {
  if (query.cancelled !== undefined && /^[0-9]{1,19}$/.test(query.cancelled)) return `Order ${query.cancelled} was cancelled.`;
  if (query.shipped !== undefined && /^[0-9]{1,19}$/.test(query.shipped)) return `Order ${query.shipped} was marked shipped.`;
  return undefined;
}
