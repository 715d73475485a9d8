import type { NewAuditEntry } from '../audit/audit-repository.js';
import { orderEvent, statusChangeEventType } from '../events/event-records.js';
import type { NewEvent } from '../events/events-repository.js';
import type { NewOrder, Order, StatusChange } from './orders-repository.js';

/*
 * The orders capability's rule for what its changes write beside
 * themselves: which event (the outbox) and which audit entry each change
 * makes, built here in TypeScript, once per event type. The storage adapters
 * call these inside the change's transaction with the order as the change
 * left it, and only write the rows they are handed; no payload is built in
 * SQL.
 */

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

/** What creating `placed` writes beside it: its order.created event and, when its caller said who placed it, its audit entry. */
export function orderCreatedRecords(placed: NewOrder, order: Order): ChangeRecords {
  const records: ChangeRecords = { events: [orderCreatedEvent(order, placed.createdAt)], audit: [] };
  if (placed.audit === undefined) return records;
  const entry: NewAuditEntry = {
    accountId: order.accountId,
    at: placed.createdAt,
    actor: placed.audit.actor,
    action: 'order_created',
    target: { kind: 'order', id: order.id.toString() },
    details: {},
  };
  if (placed.audit.address !== undefined) entry.address = placed.audit.address;
  records.audit.push(entry);
  return records;
}

/** The event of an order's creation (create or import), `order` as stored. */
export function orderCreatedEvent(order: Order, at: string): NewEvent {
  return orderEvent('order.created', order, at);
}

/** The order an import inserted, as stored: `id` is the one the database placed it at. */
export function importedOrder(order: NewOrder, id: bigint): Order {
  const stored: Order = { id, accountId: order.accountId, complete: order.complete, status: order.status };
  if (order.petId !== undefined) stored.petId = order.petId;
  if (order.quantity !== undefined) stored.quantity = order.quantity;
  if (order.shipDate !== undefined) stored.shipDate = order.shipDate;
  return stored;
}
