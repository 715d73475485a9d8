import { AppError, ConflictError, NotFoundError, ValidationError } from '../errors/errors.js';
import type { Clock } from '../shared/clock.js';
import { createBatcher } from '../shared/batcher.js';
import { createOrdersListing, type ListingOptions, type OpenedListing, type ReadVersion } from './orders-listing.js';
import { newPendingOrder, type CreateOrderInput } from './new-order.js';
import { startImportParser, type ParsedLines } from './orders-import-parser.js';
import {
  ImportRejectedError,
  type NewOrder,
  type Order,
  type OrdersRepository,
  type StatusChange,
  type StatusChangeResult,
} from './orders-repository.js';

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

export function createOrdersService({
  ordersRepository,
  clock,
  listing: listingOptions,
  changeStatus,
  readVersion,
}: {
  ordersRepository: OrdersRepository;
  clock: Clock;
  listing?: ListingOptions;
  /** Shared with the v2 service, so that their version reads share batches. */
  readVersion: ReadVersion;
  /** Shared with every service that cancels, so that their cancels share commits. */
  changeStatus: ChangeStatus;
}) {
  const notFound = (orderId: bigint) => new NotFoundError('order_not_found', `Order ${orderId} was not found.`);
  const listing = createOrdersListing(ordersRepository, readVersion, listingOptions);

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
     * nothing is committed. `lines` comes in groups (e.g. the lines of each
     * chunk read); a worker thread parses batches of them while storage
     * writes the batches before.
     */
    async importOrders(
      accountId: number,
      lines: AsyncIterable<readonly string[]>,
      { onProgress }: { onProgress?: (imported: number) => void } = {},
    ): Promise<{ imported: number }> {
      const parser = startImportParser({ accountId, createdAt: clock.now().toISOString() });
      // Line numbers of the batch storage is consuming, to name a refused order's line.
      let batchStart = 0;
      let batchLines: readonly number[] = [];
      let queued = 0;
      /** A parsed batch to storage; a refused line ends the import with its number. */
      async function* store(parsed: Promise<ParsedLines>): AsyncGenerator<NewOrder[]> {
        const batch = await parsed;
        if ('refused' in batch) throw new ValidationError(`Line ${batch.refused.line}: ${batch.refused.message}`);
        batchStart = queued;
        batchLines = batch.numbers;
        queued += batch.orders.length;
        yield batch.orders;
        onProgress?.(queued);
      }
      async function* toParser(batch: string[], numbers: number[]): AsyncGenerator<NewOrder[]> {
        if (parser.offer(batch, numbers)) return;
        // The parser is full: its oldest batch is taken before this one goes in, so that
        // the parser still holds a full queue while storage writes the batch taken.
        const oldest = parser.take();
        if (oldest === undefined || !parser.offer(batch, numbers)) throw new Error('the parser refused a batch after one was taken');
        yield* store(oldest);
      }
      async function* batches(): AsyncGenerator<NewOrder[]> {
        let batch: string[] = [];
        let numbers: number[] = [];
        let lineNumber = 0;
        for await (const group of lines) {
          for (const line of group) {
            lineNumber++;
            if (line.trim() === '') continue;
            batch.push(line);
            numbers.push(lineNumber);
            if (batch.length === IMPORT_BATCH) {
              yield* toParser(batch, numbers);
              batch = [];
              numbers = [];
            }
          }
        }
        if (batch.length > 0) yield* toParser(batch, numbers);
        for (let parsed = parser.take(); parsed !== undefined; parsed = parser.take()) yield* store(parsed);
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
      } finally {
        await parser.close();
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
