import { AppError, ConflictError, NotFoundError, ValidationError } from '../errors/errors.js';
import type { Clock } from '../shared/clock.js';
import { normalizeDateTime } from '../shared/date-time.js';
import { createBatcher } from '../shared/batcher.js';
import { isInt64 } from '../shared/int64.js';
import { createOrdersListing, createVersionReads, type ListingOptions, type OpenedListing, type ReadVersion } from './orders-listing.js';
import { parseOrderLine } from './orders-import.js';
import {
  ImportRejectedError,
  type NewOrder,
  type Order,
  type OrdersRepository,
  type StatusChange,
  type StatusChangeResult,
} from './orders-repository.js';

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

/** A conditional status change, answered once it is durably committed. */
export type ChangeStatus = (change: StatusChange) => Promise<StatusChangeResult>;

/**
 * Durable status changes that arrive together share one transaction and one
 * commit (changeStatusMany), each still decided by its own conditional write.
 * Create one per storage and hand it to every service that cancels, so v1 and
 * v2 cancels share commits too.
 */
export function createGroupedStatusChanges(ordersRepository: Pick<OrdersRepository, 'changeStatusMany'>): ChangeStatus {
  return createBatcher<StatusChange, StatusChangeResult>((batch) => ordersRepository.changeStatusMany(batch));
}

/**
 * The one pending -> cancelled transition every API version uses: a single
 * conditional write, so of concurrent cancels exactly one changes the order.
 * Each version maps the refusal to its own answer.
 */
export function cancelPendingOrder(
  { changeStatus, clock }: { changeStatus: ChangeStatus; clock: Clock },
  accountId: number,
  orderId: bigint,
): Promise<StatusChangeResult> {
  return changeStatus({ id: orderId, accountId, from: 'pending', to: 'cancelled', at: clock.now().toISOString() });
}

export function alreadyShipped(orderId: bigint): ConflictError {
  return new ConflictError('order_already_shipped', `Order ${orderId} has already shipped and cannot be cancelled.`);
}

const IMPORT_BATCH = 1000;

/** Validates an order placed through the operator interfaces. */
function newPendingOrder(
  input: CreateOrderInput,
  createdAt: string,
  normalizeShipDate: (text: string) => string | undefined = normalizeDateTime,
): NewOrder {
  if (input.id !== undefined && !isInt64(input.id)) throw new ValidationError('Order id must be an int64.');
  if (input.petId !== undefined && !isInt64(input.petId)) throw new ValidationError('Pet id must be an int64.');
  if (input.quantity !== undefined && !(Number.isInteger(input.quantity) && input.quantity >= 1 && input.quantity <= QUANTITY_MAX)) {
    throw new ValidationError(`Quantity must be an integer from 1 to ${QUANTITY_MAX}.`);
  }
  let shipDate: string | undefined;
  if (input.shipDate !== undefined) {
    shipDate = normalizeShipDate(input.shipDate);
    if (shipDate === undefined) {
      throw new ValidationError('Ship date must be an ISO 8601 date-time with a time zone, e.g. 2026-12-01T10:00:00Z.');
    }
  }
  return {
    id: input.id,
    accountId: input.accountId,
    petId: input.petId,
    quantity: input.quantity,
    shipDate,
    complete: input.complete ?? false,
    status: 'pending',
    createdAt,
  };
}

export function createOrdersService({
  ordersRepository,
  clock,
  listing: listingOptions,
  changeStatus = createGroupedStatusChanges(ordersRepository),
  readVersion = createVersionReads(ordersRepository),
}: {
  ordersRepository: OrdersRepository;
  clock: Clock;
  listing?: ListingOptions;
  /** Shared with the v2 service, so that their version reads share batches. */
  readVersion?: ReadVersion;
  /** Shared with the other services that cancel; its own group commit when absent. */
  changeStatus?: ChangeStatus;
}) {
  const notFound = (orderId: bigint) => new NotFoundError('order_not_found', `Order ${orderId} was not found.`);
  const listing = createOrdersListing(ordersRepository, listingOptions, readVersion);

  return {
    /** The v1 collection: the account's orders that have not been cancelled, by id. */
    async listOrders(accountId: number): Promise<Order[]> {
      return ordersRepository.listActive(accountId);
    },

    /**
     * The v1 collection as a response: its validator (for ETag and 304),
     * known from the account's change counter without listing, and its body
     * already serialized, from cache while that counter is unchanged or
     * streamed when large.
     */
    async openListing(accountId: number): Promise<OpenedListing> {
      return listing.open(accountId);
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
      const result = await cancelPendingOrder({ changeStatus, clock }, accountId, orderId);
      if (result.changed) return;
      if (result.current === 'shipped') throw alreadyShipped(orderId);
      throw notFound(orderId);
    },

    /** Places an order in the pending state (operator interface). */
    async createOrder(input: CreateOrderInput): Promise<Order> {
      return ordersRepository.create(newPendingOrder(input, clock.now().toISOString()));
    },

    /**
     * Bulk-loads pending orders for one account from NDJSON lines (one
     * CreateOrderInput object per line, blank lines skipped), all in one
     * transaction: a bad line aborts the import with its line number and
     * nothing is committed.
     */
    async importOrders(
      accountId: number,
      lines: AsyncIterable<string>,
      { onProgress }: { onProgress?: (imported: number) => void } = {},
    ): Promise<{ imported: number }> {
      const createdAt = clock.now().toISOString();
      // Bulk data repeats ship dates; parsing each one again is a third of the work.
      const shipDates = new Map<string, string | undefined>();
      const normalizeShipDate = (text: string) => {
        if (shipDates.has(text)) return shipDates.get(text);
        if (shipDates.size >= 10_000) shipDates.clear();
        const normalized = normalizeDateTime(text);
        shipDates.set(text, normalized);
        return normalized;
      };
      // Line numbers of the batch storage is consuming, to name a refused order's line.
      let batchStart = 0;
      let batchLines: number[] = [];
      async function* batches(): AsyncGenerator<NewOrder[]> {
        let batch: NewOrder[] = [];
        let numbers: number[] = [];
        let lineNumber = 0;
        let queued = 0;
        for await (const line of lines) {
          lineNumber++;
          if (line.trim() === '') continue;
          try {
            batch.push(newPendingOrder({ ...parseOrderLine(line), accountId }, createdAt, normalizeShipDate));
          } catch (error) {
            if (error instanceof AppError) throw new ValidationError(`Line ${lineNumber}: ${error.message}`);
            throw error;
          }
          numbers.push(lineNumber);
          if (batch.length === IMPORT_BATCH) {
            batchStart = queued;
            batchLines = numbers;
            queued += batch.length;
            yield batch;
            onProgress?.(queued);
            batch = [];
            numbers = [];
          }
        }
        if (batch.length > 0) {
          batchStart = queued;
          batchLines = numbers;
          yield batch;
          onProgress?.(queued + batch.length);
        }
      }
      try {
        return await ordersRepository.importOrders(batches());
      } catch (error) {
        if (error instanceof ImportRejectedError) {
          const line = batchLines[error.position - batchStart];
          const reason = error.reason;
          if (reason instanceof AppError && reason.code === 'account_not_found') throw reason;
          throw new ConflictError('order_id_taken', line === undefined ? reason.message : `Line ${line}: ${reason.message}`);
        }
        throw error;
      }
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
