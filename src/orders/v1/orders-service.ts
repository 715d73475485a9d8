import { SYSTEM_CONTEXT } from '../../audit/audit-context.js';
import type { AuditContext } from '../../audit/audit-repository.js';
import { AppError, ConflictError, NotFoundError, ValidationError } from '../../errors/errors.js';
import type { Clock } from '../../shared/clock.js';
import { digestOf } from '../../shared/digest.js';
import { alreadyShipped, cancelPendingOrder, type ChangeStatus } from '../order-status-changes.js';
import { Lru } from '../../shared/lru.js';
import type { ReadVersion } from '../listing/version-reads.js';
import { newPendingOrder, type CreateOrderInput } from '../new-order.js';
import { startImportParser, type ParsedLines } from '../import/parser-thread.js';
import {
  ImportRejectedError,
  type ImportBatch,
  type ListedOrder,
  type Order,
  type OrdersRepository,
} from '../orders-repository.js';

const IMPORT_BATCH = 1000;

/** Accounts whose current v1 validator is remembered. */
const LISTINGS_KNOWN = 100_000;

/** Bump when the v1 listing changes shape, so that older ETags stop matching. */
const V1_REPRESENTATION_REVISION = 1;

/** The v1 listing of one account at one version of its orders, before any order is read. */
export interface ActiveOrdersListing {
  readonly accountId: number;
  /**
   * Changes whenever the listing could: any write to the account's orders
   * (by any process sharing the database) or a new release of its shape.
   */
  readonly validator: string;
}

export function createOrdersService({
  ordersRepository,
  clock,
  changeStatus,
  readVersion,
}: {
  ordersRepository: OrdersRepository;
  clock: Clock;
  /** Shared with the v2 service, so that their version reads share batches. */
  readVersion: ReadVersion;
  /** Shared with every service that cancels, so that their cancels share commits. */
  changeStatus: ChangeStatus;
}) {
  const notFound = (orderId: bigint) => new NotFoundError('order_not_found', `Order ${orderId} was not found.`);
  const listings = new Lru<number, { version: bigint; listing: ActiveOrdersListing }>(LISTINGS_KNOWN, () => 1);

  return {
    /**
     * The v1 collection's validator (for ETag and 304), known from the
     * account's orders version without listing. The version is read before
     * any order: a write in between can only leave the validator older than
     * the orders read after it (a needless rebuild later), never newer.
     */
    async openListing(accountId: number): Promise<ActiveOrdersListing> {
      const version = await readVersion(accountId);
      const known = listings.get(accountId);
      if (known !== undefined && known.version === version) return known.listing;
      // A digest per request would cost more than the rest of a cached answer: one per version.
      const listing = { accountId, validator: digestOf(['orders-v1', V1_REPRESENTATION_REVISION, accountId, version]) };
      listings.set(accountId, { version, listing });
      return listing;
    },

    /**
     * The v1 collection (the account's orders that have not been cancelled),
     * by id: `first` orders, then `next` at a time until none is left. Each
     * page is an id range, so any depth stays an index range scan, and a
     * caller that stops pulling reads no further page.
     */
    async *activeOrders(accountId: number, { first, next }: { first: number; next: number }): AsyncGenerator<ListedOrder[]> {
      let page = await ordersRepository.listActivePage(accountId, undefined, first);
      while (page.length > 0) {
        yield page;
        const last = page[page.length - 1];
        if (last === undefined) return;
        page = await ordersRepository.listActivePage(accountId, last.id, next);
      }
    },

    /** Every order of the account in any status (operator view). */
    async listAllOrders(accountId: number): Promise<Order[]> {
      return ordersRepository.listAll(accountId);
    },

    /**
     * Cancels a pending order. A shipped order cannot be reversed (409). An
     * order that is missing, already cancelled or another account's is
     * reported identically as not found, so no other tenant's data leaks.
     * `context` (who asked, from where) goes to the audit trail.
     */
    async cancelOrder(accountId: number, orderId: bigint, context: AuditContext = SYSTEM_CONTEXT): Promise<void> {
      const result = await cancelPendingOrder({ changeStatus, clock }, accountId, orderId, context);
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
      let queued = 0;
      /** A parsed batch to storage, with its line numbers; a refused line ends the import with its number. */
      async function* store(parsed: Promise<ParsedLines>): AsyncGenerator<ImportBatch> {
        const batch = await parsed;
        if ('refused' in batch) throw new ValidationError(`Line ${batch.refused.line}: ${batch.refused.message}`);
        queued += batch.orders.length;
        yield { orders: batch.orders, lines: batch.numbers };
        onProgress?.(queued);
      }
      async function* toParser(batch: string[], numbers: number[]): AsyncGenerator<ImportBatch> {
        if (parser.offer(batch, numbers)) return;
        // The parser is full: its oldest batch is taken before this one goes in, so that
        // the parser still holds a full queue while storage writes the batch taken.
        const oldest = parser.take();
        if (oldest === undefined || !parser.offer(batch, numbers)) throw new Error('the parser refused a batch after one was taken');
        yield* store(oldest);
      }
      async function* batches(): AsyncGenerator<ImportBatch> {
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
          const reason = error.reason;
          if (reason instanceof AppError && reason.code === 'account_not_found') throw reason;
          throw new ConflictError('order_id_taken', `Line ${error.line}: ${reason.message}`);
        }
        throw error;
      } finally {
        await parser.close();
      }
    },

    /** Moves a pending order to shipped (operator interface). */
    async shipOrder(orderId: bigint, context: AuditContext = SYSTEM_CONTEXT): Promise<void> {
      const result = await ordersRepository.changeStatus({ id: orderId, from: 'pending', to: 'shipped', at: clock.now().toISOString(), audit: context });
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
