import { ConflictError, NotFoundError, ValidationError } from '../errors/errors.js';
import type { Clock } from '../shared/clock.js';
import { normalizeDateTime } from '../shared/date-time.js';
import { digestOf } from '../shared/digest.js';
import { isInt64 } from '../shared/int64.js';
import type { Order, OrdersRepository, StatusChangeResult } from './orders-repository.js';

/** Bump when the serialised v1 listing changes shape, so that older ETags stop matching. */
const V1_REPRESENTATION_REVISION = 1;

/** Quantity is a count of units: a positive 32-bit integer. */
export const QUANTITY_MAX = 2_147_483_647;

export interface CreateOrderInput {
  accountId: number;
  id?: bigint;
  petId?: bigint;
  quantity?: number;
  /** Any RFC 3339 date-time; stored normalised to UTC. */
  shipDate?: string;
  complete?: boolean;
}

/**
 * The one pending -> cancelled transition every API version uses: a single
 * conditional write, so of concurrent cancels exactly one changes the order.
 * Each version maps the refusal to its own answer.
 */
export function cancelPendingOrder(
  { ordersRepository, clock }: { ordersRepository: OrdersRepository; clock: Clock },
  accountId: number,
  orderId: bigint,
): Promise<StatusChangeResult> {
  return ordersRepository.changeStatus({ id: orderId, accountId, from: 'pending', to: 'cancelled', at: clock.now().toISOString() });
}

export function alreadyShipped(orderId: bigint): ConflictError {
  return new ConflictError('order_already_shipped', `Order ${orderId} has already shipped and cannot be cancelled.`);
}

export function createOrdersService({ ordersRepository, clock }: { ordersRepository: OrdersRepository; clock: Clock }) {
  const notFound = (orderId: bigint) => new NotFoundError('order_not_found', `Order ${orderId} was not found.`);

  return {
    /** The v1 collection: the account's orders that have not been cancelled, by id. */
    async listOrders(accountId: number): Promise<Order[]> {
      return ordersRepository.listActive(accountId);
    },

    /**
     * Changes whenever the v1 listing could, read from the account's change
     * counter without listing. Call it before listOrders: a write in between
     * then leaves the validator older than the body, never newer.
     */
    async listingValidator(accountId: number): Promise<string> {
      const version = await ordersRepository.ordersVersion(accountId);
      return digestOf(['orders-v1', V1_REPRESENTATION_REVISION, accountId, version]);
    },

    /** Every order of the account in any status (operator view). */
    async listAllOrders(accountId: number): Promise<Order[]> {
      return ordersRepository.listAll(accountId);
    },

    /**
     * Cancels a pending order. A shipped order cannot be reversed (409). An
     * order that is missing, already cancelled or another account's is
     * reported identically as not found, so no other tenant's data leaks.
     */
    async cancelOrder(accountId: number, orderId: bigint): Promise<void> {
      const result = await cancelPendingOrder({ ordersRepository, clock }, accountId, orderId);
      if (result.changed) return;
      if (result.current === 'shipped') throw alreadyShipped(orderId);
      throw notFound(orderId);
    },

    /** Places an order in the pending state (operator interface). */
    async createOrder(input: CreateOrderInput): Promise<Order> {
      if (input.id !== undefined && !isInt64(input.id)) throw new ValidationError('Order id must be an int64.');
      if (input.petId !== undefined && !isInt64(input.petId)) throw new ValidationError('Pet id must be an int64.');
      if (input.quantity !== undefined && !(Number.isInteger(input.quantity) && input.quantity >= 1 && input.quantity <= QUANTITY_MAX)) {
        throw new ValidationError(`Quantity must be an integer from 1 to ${QUANTITY_MAX}.`);
      }
      let shipDate: string | undefined;
      if (input.shipDate !== undefined) {
        shipDate = normalizeDateTime(input.shipDate);
        if (shipDate === undefined) {
          throw new ValidationError('Ship date must be an ISO 8601 date-time with a time zone, e.g. 2026-12-01T10:00:00Z.');
        }
      }
      return ordersRepository.create({
        id: input.id,
        accountId: input.accountId,
        petId: input.petId,
        quantity: input.quantity,
        shipDate,
        complete: input.complete ?? false,
        status: 'pending',
        createdAt: clock.now().toISOString(),
      });
    },

    /** Moves a pending order to shipped (operator interface). */
    async shipOrder(orderId: bigint): Promise<void> {
      const result = await ordersRepository.changeStatus({ id: orderId, from: 'pending', to: 'shipped', at: clock.now().toISOString() });
      if (result.changed) return;
      if (result.current === undefined) throw notFound(orderId);
      throw new ConflictError(
        'order_not_pending',
        result.current === 'shipped' ? `Order ${orderId} has already shipped.` : `Order ${orderId} is cancelled and cannot be shipped.`,
      );
    },
  };
}

export type OrdersService = ReturnType<typeof createOrdersService>;
