import type { NewAuditEntry } from '../audit/audit-repository.js';
import { orderEvent, statusChangeEventType } from '../events/event-records.js';
import type { NewEvent } from '../events/events-repository.js';
import type { Order, StatusChange } from '../orders/orders-repository.js';

/**
 * What the status changes of one transaction write beside themselves, in
 * that transaction: each change's event (the outbox) and, when its caller
 * said who asked, its audit entry. No change commits without them.
 */
export interface ChangeRecords {
  events: NewEvent[];
  audit: NewAuditEntry[];
}

export function changeRecords(): ChangeRecords {
  return { events: [], audit: [] };
}

/** Adds the records of a change that happened; `order` is the order right after it. */
export function recordStatusChange(records: ChangeRecords, change: StatusChange, order: Order): void {
  const type = statusChangeEventType(change.to);
  if (type !== undefined) records.events.push(orderEvent(type, order, change.at));
  const action = change.to === 'cancelled' ? 'order_cancelled' : change.to === 'shipped' ? 'order_shipped' : undefined;
  if (change.audit === undefined || action === undefined) return;
  const entry: NewAuditEntry = {
    accountId: order.accountId,
    at: change.at,
    actor: change.audit.actor,
    action,
    target: { kind: 'order', id: change.id.toString() },
    details: {},
  };
  if (change.audit.address !== undefined) entry.address = change.audit.address;
  records.audit.push(entry);
}
