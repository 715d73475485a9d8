import type { AuditContext } from '../audit/audit-repository.js';
import type { IdempotencyCompletion } from '../idempotency/idempotency-repository.js';
export const ORDER_STATUSES = ['pending', 'shipped', 'cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/**
 * An order as stored. `id` and `petId` are int64 and therefore bigint: a JS
 * number cannot hold every int64 exactly. Unset optional fields are absent,
 * never null.
 */
export interface Order {
  id: bigint;
  accountId: number;
  petId?: bigint;
  quantity?: number;
  /** ISO 8601 UTC with milliseconds, e.g. 2026-12-01T10:00:00.000Z. */
  shipDate?: string;
  complete: boolean;
  status: OrderStatus;
}

/** What the v1 listing shows of an order: the five documented fields. */
export type ListedOrder = Pick<Order, 'id' | 'petId' | 'quantity' | 'shipDate' | 'complete'>;

export interface NewOrder {
  /** Chosen by storage when absent. */
  id?: bigint;
  accountId: number;
  petId?: bigint;
  quantity?: number;
  shipDate?: string;
  complete: boolean;
  status: OrderStatus;
  createdAt: string;
  /** Who placed it, from where: written to the audit trail (order_created) in the order's transaction. Absent: no entry. */
  audit?: AuditContext;
}

export interface StatusChange {
  id: bigint;
  /** When given, only an order of this account matches. */
  accountId?: number;
  from: OrderStatus;
  to: OrderStatus;
  at: string;
  /**
   * Who asked, from where: a change that happens is written to the audit
   * trail in its own transaction (order_cancelled, order_shipped), so no
   * status change commits without its entry, and a cancel's group commit
   * stays one durable write.
   */
  audit?: AuditContext;
}

/**
 * The result of a conditional status change: either it happened, or the order
 * was not in `from` at that instant, in which case `current` tells what it was
 * (absent when no such order exists for the account).
 */
export type StatusChangeResult = { changed: true } | { changed: false; current?: OrderStatus };

/**
 * The v2 listing filters, already validated and normalised. Absent means
 * "any"; `statuses`, when present, is non-empty. The ship-date range is
 * half-open, [shipDateFrom, shipDateTo), and excludes orders without one.
 */
export interface OrderFilter {
  statuses?: readonly OrderStatus[];
  petId?: bigint;
  complete?: boolean;
  /** ISO 8601 UTC with milliseconds, inclusive. */
  shipDateFrom?: string;
  /** ISO 8601 UTC with milliseconds, exclusive. */
  shipDateTo?: string;
}

/** One keyset page: the first `limit` matching orders with id > `afterId`, by id. */
export interface OrderPageQuery {
  accountId: number;
  filter: OrderFilter;
  afterId?: bigint;
  limit: number;
}

/** Storage of orders. Adapters live in src/storage/<database>/. */
export interface OrdersRepository {
  /**
   * Throws NotFoundError('account_not_found') for an unknown account and
   * ConflictError('order_id_taken') when `id` is already used. With
   * `completion`, the Idempotency-Key claim is completed with the response
   * made of the order in the order's own transaction, so neither commits
   * without the other; a lost claim rolls the order back and throws
   * IdempotencyClaimLost.
   */
  create(order: NewOrder, completion?: IdempotencyCompletion<Order>): Promise<Order>;
  /** All of the account's orders in any status, by id. */
  listAll(accountId: number): Promise<Order[]>;
  findById(id: bigint): Promise<Order | undefined>;
  /**
   * Atomically moves an order from one status to another: a single
   * conditional write, so that of any number of concurrent callers exactly
   * one sees `changed: true`.
   */
  changeStatus(change: StatusChange): Promise<StatusChangeResult>;
  /**
   * Group commit: applies every change in one transaction and one durable
   * commit. Each result is decided by that change's own conditional write,
   * in array order, exactly as changeStatus would decide it; nothing is
   * acknowledged before the commit. If the commit fails, the promise rejects
   * and none of the changes happened.
   */
  changeStatusMany(changes: readonly StatusChange[]): Promise<StatusChangeResult[]>;
  /**
   * One page of the account's orders whose status is not `cancelled`: at most `limit` orders with id greater than
   * `afterId` (from the lowest when absent), by id. Paging by id keeps every
   * page an index range scan however deep the listing goes.
   */
  listActivePage(accountId: number, afterId: bigint | undefined, limit: number): Promise<ListedOrder[]>;
  /**
   * Creates every order of every batch in one transaction: all or nothing.
   * Batches are pulled as they are written (an adapter may gather a few
   * into one statement, never more than 10,000 orders, and gather the next
   * statement's while one runs), so the source may be any size. A rejected order aborts the import with ImportRejectedError
   * naming its source line, and the source is closed; an error thrown by
   * the source aborts it too.
   */
  importOrders(batches: AsyncIterable<ImportBatch>): Promise<{ imported: number }>;
  /** Any status, any filter: index-backed keyset pagination (never OFFSET). */
  listPage(query: OrderPageQuery): Promise<Order[]>;
  /**
   * A counter that the database bumps in the same transaction as every write
   * to the account's orders (0 for an account without any, or no account).
   */
  ordersVersion(accountId: number): Promise<bigint>;
}

/** Orders to import, each with the number of the source line it came from (to name a refused one). */
export interface ImportBatch {
  readonly orders: readonly NewOrder[];
  /** lines[i] is the line of orders[i]. */
  readonly lines: readonly number[];
}

/** Why an import stopped: the order of source line `line` was refused. */
export class ImportRejectedError extends Error {
  constructor(
    readonly line: number,
    readonly reason: Error,
  ) {
    super(reason.message, { cause: reason });
    this.name = 'ImportRejectedError';
  }
}
