import { SYSTEM_CONTEXT } from '../../audit/audit-context.js';
import type { AuditContext } from '../../audit/audit-repository.js';
import type { Clock } from '../../shared/clock.js';
import { digestOf } from '../../shared/digest.js';
import { alreadyShipped, cancelPendingOrder, orderNotFound, type ChangeStatus } from '../order-status-changes.js';
import { Lru } from '../../shared/lru.js';
import type { ReadVersion } from '../listing/version-reads.js';
import type { ListedOrder, OrdersRepository } from '../orders-repository.js';

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
      throw orderNotFound(orderId);
    },

  };
}

export type OrdersService = ReturnType<typeof createOrdersService>;
