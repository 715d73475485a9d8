import type { AuditContext } from '../audit/audit-repository.js';
import { ConflictError, NotFoundError } from '../errors/errors.js';
import { createBatcher } from '../shared/batcher.js';
import type { Clock } from '../shared/clock.js';
import type { OrdersRepository, StatusChange, StatusChangeResult } from './orders-repository.js';

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
 * Each version maps the refusal to its own answer. A cancel that happens
 * commits with its event and its audit entry (`audit`: who asked).
 */
export function cancelPendingOrder(
  { changeStatus, clock }: { changeStatus: ChangeStatus; clock: Clock },
  accountId: number,
  orderId: bigint,
  audit: AuditContext,
): Promise<StatusChangeResult> {
  return changeStatus({ id: orderId, accountId, from: 'pending', to: 'cancelled', at: clock.now().toISOString(), audit });
}

/** A missing order, another account's, or (for a cancel) one already cancelled: all answered alike, so no tenant learns of another's orders. */
export function orderNotFound(orderId: bigint): NotFoundError {
  return new NotFoundError('order_not_found', `Order ${orderId} was not found.`);
}

export function alreadyShipped(orderId: bigint): ConflictError {
  return new ConflictError('order_already_shipped', `Order ${orderId} has already shipped and cannot be cancelled.`);
}
