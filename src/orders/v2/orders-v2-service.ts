import { ConflictError, InvalidInputError } from '../../errors/errors.js';
import { PAGE_LIMIT_DESCRIPTION, PAGE_LIMIT_MAX } from '../../api/page-bounds.js';
import type { Clock } from '../../shared/clock.js';
import { digestOf } from '../../shared/digest.js';
import type { CursorCodec } from '../../api/cursors.js';
import { canonicalFilter, filterDigest } from './orders-v2-filters.js';
import type { Order, OrderFilter, OrdersRepository } from '../orders-repository.js';
import type { ReadVersion } from '../listing/version-reads.js';
import { alreadyShipped, cancelPendingOrder, orderNotFound, type ChangeStatus } from '../order-status-changes.js';
import { SYSTEM_CONTEXT } from '../../audit/audit-context.js';
import type { AuditContext } from '../../audit/audit-repository.js';
import type { IdempotencyCompletion } from '../../idempotency/idempotency-repository.js';
import { newPendingOrder } from '../new-order.js';
import { Lru } from '../../shared/lru.js';

/**
 * Bump when the serialised v2 Order or page changes shape, so that clients'
 * ETags from an older release stop matching.
 */
const V2_REPRESENTATION_REVISION = 1;

/** Listings (account, filters, position, limit) whose current validator is remembered: each key is at most a few hundred bytes. */
const VALIDATORS_KNOWN = 10_000;

export interface ListOrdersV2Request {
  filter: OrderFilter;
  /** 1 to PAGE_LIMIT_MAX (orders-v2-bounds.ts): checked here, the one place. */
  limit: number;
  /** A nextCursor from an earlier page, as received. */
  cursor?: string;
}

/** A validated listing request whose page has not been read yet. */
export interface OrdersV2Listing {
  readonly accountId: number;
  readonly filter: OrderFilter;
  readonly limit: number;
  readonly afterId?: bigint;
  /**
   * Changes whenever the page could: any write to the account's orders, other
   * filters or position, a new signing key or release.
   */
  readonly validator: string;
}

/** What a client places: the fields `orders create` takes, without an id (storage picks it) or `complete`. */
export interface PlaceOrderInput {
  petId: bigint;
  quantity: number;
  /** Any RFC 3339 date-time; stored normalised to UTC. */
  shipDate?: string;
}

export interface OrdersPage {
  orders: Order[];
  nextCursor: string | null;
}

const invalidCursor = () => new InvalidInputError('cursor', 'is not valid: pass the nextCursor of a previous page unchanged.', 'invalid_cursor');

/** The v2 (beta) orders rules: every status is visible, listing is filtered and paged. */
export function createOrdersV2Service({
  ordersRepository,
  cursors,
  clock,
  changeStatus,
  readVersion,
}: {
  ordersRepository: OrdersRepository;
  cursors: CursorCodec;
  clock: Clock;
  /** Shared with the v1 service so that their cancels share commits. */
  changeStatus: ChangeStatus;
  /** Shared with the v1 service so that their version reads share batches. */
  readVersion: ReadVersion;
}) {
  // A digest per request would cost more than the rest of a cached page: one per listing and version, as v1 does.
  const validators = new Lru<string, { version: bigint; keyId: string; validator: string }>(VALIDATORS_KNOWN);

  return {
    /**
     * Checks the request (the cursor must be ours, for this account and these
     * filters) and computes the listing's validator without reading any order,
     * so an unchanged listing is answered from one primary-key read.
     */
    async openListing(accountId: number, { filter, limit, cursor }: ListOrdersV2Request): Promise<OrdersV2Listing> {
      if (!Number.isInteger(limit) || limit < 1 || limit > PAGE_LIMIT_MAX) {
        throw new InvalidInputError('limit', `is not valid. Expected: ${PAGE_LIMIT_DESCRIPTION}`);
      }
      let afterId: bigint | undefined;
      if (cursor !== undefined) {
        const position = await cursors.decode(cursor);
        // A cursor of another account is refused exactly like a forged one.
        if (position === undefined || position.accountId !== accountId) throw invalidCursor();
        if (position.filterDigest !== filterDigest(filter)) {
          throw new InvalidInputError(
            'cursor',
            'belongs to a listing with other filters: repeat the status, petId, complete, shipDateFrom and shipDateTo of the first page.',
            'invalid_cursor',
          );
        }
        afterId = position.afterId;
      }
      // Read before the page, never after: a write in between can then only
      // make the ETag older than the body (a needless 200 later), never newer
      // (a 304 for a body the client does not have).
      const version = await readVersion(accountId);
      const keyId = await cursors.signingKeyId();
      const canonical = canonicalFilter(filter);
      // Unambiguous: the canonical filter is JSON, whose strings never hold a raw line feed.
      const listing = `${accountId}\n${canonical}\n${afterId ?? ''}\n${limit}`;
      const known = validators.get(listing);
      if (known !== undefined && known.version === version && known.keyId === keyId) return { accountId, filter, limit, afterId, validator: known.validator };
      const validator = digestOf(['orders-v2', V2_REPRESENTATION_REVISION, accountId, version, canonical, afterId ?? '', limit, keyId]);
      validators.set(listing, { version, keyId, validator });
      return { accountId, filter, limit, afterId, validator };
    },

    /** One page by id, and a cursor when more orders may follow. */
    async readPage({ accountId, filter, limit, afterId }: OrdersV2Listing): Promise<OrdersPage> {
      const rows = await ordersRepository.listPage({ accountId, filter, afterId, limit: limit + 1 });
      const orders = rows.slice(0, limit);
      const last = orders.at(-1);
      const nextCursor =
        rows.length > limit && last !== undefined
          ? await cursors.encode({ accountId, filterDigest: filterDigest(filter), afterId: last.id })
          : null;
      return { orders, nextCursor };
    },

    /**
     * Places a pending order, validated exactly as `orders create` validates;
     * its order.created event commits with it. With `completion`, the
     * request's Idempotency-Key claim completes in the same transaction; with
     * `context` (who placed it, from where), its audit entry (order_created).
     */
    async placeOrder(accountId: number, input: PlaceOrderInput, completion?: IdempotencyCompletion<Order>, context?: AuditContext): Promise<Order> {
      const order = newPendingOrder({ accountId, ...input }, clock.now().toISOString());
      return ordersRepository.create(context === undefined ? order : { ...order, audit: context }, completion);
    },

    /** An order of the account in any status; another account's is not found. */
    async getOrder(accountId: number, orderId: bigint): Promise<Order> {
      const order = await ordersRepository.findById(orderId);
      if (order === undefined || order.accountId !== accountId) throw orderNotFound(orderId);
      return order;
    },

    /**
     * Cancels a pending order. Unlike v1, which hides cancelled orders, v2
     * shows them, so cancelling one again is a conflict (409), not a 404.
     * `context` (who asked, from where) goes to the audit trail.
     */
    async cancelOrder(accountId: number, orderId: bigint, context: AuditContext = SYSTEM_CONTEXT): Promise<void> {
      const result = await cancelPendingOrder({ changeStatus, clock }, accountId, orderId, context);
      if (result.changed) return;
      if (result.current === 'shipped') throw alreadyShipped(orderId);
      if (result.current === 'cancelled') {
        throw new ConflictError('order_already_cancelled', `Order ${orderId} is already cancelled.`);
      }
      throw orderNotFound(orderId);
    },
  };
}

export type OrdersV2Service = ReturnType<typeof createOrdersV2Service>;
