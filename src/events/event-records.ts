import { randomBytes } from 'node:crypto';
import type { Message } from '../messages/messages-repository.js';
import type { Order, OrderStatus } from '../orders/orders-repository.js';
import { TEST_EVENT_TYPE, type MessageEventType, type OrderEventType } from './event-types.js';
import type { NewEvent } from './events-repository.js';

/** 40 random bits drawn once per process: ids of different processes never share them (but with odds of 2^-40). */
const PROCESS_PART = randomBytes(5).toString('hex');
const ZEROS = '000000000000';
let lastMs = -1;
let prefix = '';
/** Counts ids within the process, from a random start. */
let counter = randomBytes(4).readUInt32BE(0);

/**
 * A fresh event id: `evt_`, the time in milliseconds (12 hex digits), the
 * process's random part (10) and a counter (10). Unique: the counter never
 * repeats within a process before 2^40 ids, and the table's unique index
 * refuses (rolls back) the impossible repeat. Time first, so that ids written
 * together sit side by side in the unique index (a group commit dirties a few
 * index pages, not one per event), and cheap: an import makes a million.
 */
function newEventId(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    prefix = `evt_${(ZEROS + now.toString(16)).slice(-12)}${PROCESS_PART}`;
  }
  counter = (counter + 1) % 0x100_0000_0000;
  const count = counter.toString(16);
  return prefix + ZEROS.slice(count.length + 2) + count;
}

/**
 * The v2 Order record's JSON (orders-v2-schemas.ts, field for field and in
 * its order), written by hand: an import builds a million of these, and
 * every value is an int64, a boolean, a status or normalised ISO 8601 text
 * (nothing to escape). int64 ids are plain JSON numbers with every digit.
 */
function orderJson(order: Order): string {
  let json = `{"id":${order.id},"status":"${order.status}","complete":${order.complete}`;
  if (order.petId !== undefined) json += `,"petId":${order.petId}`;
  if (order.quantity !== undefined) json += `,"quantity":${order.quantity}`;
  if (order.shipDate !== undefined) json += `,"shipDate":"${order.shipDate}"`;
  return `${json}}`;
}

function eventJson(id: string, type: string, createdAt: string, data: string): string {
  return `{"id":"${id}","type":"${type}","createdAt":"${createdAt}","data":${data}}`;
}

/** The subject of an order's events: its deliveries to an endpoint go in order, and its history reads them by it. */
export function orderSubject(orderId: bigint): string {
  return `order:${orderId}`;
}

/** The event reporting `order` as it is right after the change made at `at`. */
export function orderEvent(type: OrderEventType, order: Order, at: string): NewEvent {
  const id = newEventId();
  return { id, accountId: order.accountId, type, createdAt: at, subject: orderSubject(order.id), payload: eventJson(id, type, at, `{"order":${orderJson(order)}}`) };
}

/** A webhook.test event for `endpointId` (never stored: sent once, on request). */
export function webhookTestEvent(endpointId: string, at: string): { id: string; payload: string } {
  const id = newEventId();
  return { id, payload: eventJson(id, TEST_EVENT_TYPE, at, `{"endpoint":{"id":"${endpointId}"}}`) };
}

/** The event a status change reports, if any (orders never return to pending). */
export function statusChangeEventType(to: OrderStatus): OrderEventType | undefined {
  if (to === 'cancelled') return 'order.cancelled';
  if (to === 'shipped') return 'order.shipped';
  return undefined;
}

/** The event reporting the end of a message's delivery; `message` as it is right after it (the quickstart Message record). */
export function messageEvent(type: MessageEventType, message: Pick<Message, 'id' | 'accountId' | 'message' | 'status' | 'createdAt'>, at: string): NewEvent {
  const id = newEventId();
  const data = JSON.stringify({ message: { id: message.id, message: message.message, status: message.status, createdAt: message.createdAt } });
  return { id, accountId: message.accountId, type, createdAt: at, subject: `message:${message.id}`, payload: eventJson(id, type, at, data) };
}
