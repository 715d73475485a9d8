import type BetterSqlite3 from 'better-sqlite3';
import type { DeliveriesQueued } from '../../delivery/deliveries-queued.js';
import type { NewEvent } from '../../events/events-repository.js';
import type { Prepare } from './sqlite-util.js';

/** Each open database's announcement of queued deliveries (sqlite-storage.ts registers it). */
const announcers = new WeakMap<BetterSqlite3.Database, DeliveriesQueued>();

export function announceDeliveriesOf(db: BetterSqlite3.Database, deliveriesQueued: DeliveriesQueued): void {
  announcers.set(db, deliveriesQueued);
}

/**
 * The webhook fan-out, inside the transaction that writes the events: a
 * delivery per event and enabled endpoint of its account subscribed to its
 * type, queued in event order. An account without endpoints costs one
 * indexed read per transaction.
 */
export function insertWebhookDeliveries(sql: Prepare, accountIds: Iterable<number>, events: readonly NewEvent[]): void {
  const endpointsOf = new Map<number, { id: string; types: Set<string> | null }[]>();
  for (const accountId of accountIds) {
    const rows = sql("SELECT id, event_types FROM webhook_endpoints WHERE account_id = ? AND status = 'enabled' ORDER BY id").all(accountId) as {
      id: string;
      event_types: string | null;
    }[];
    if (rows.length > 0) endpointsOf.set(accountId, rows.map((row) => ({ id: row.id, types: row.event_types === null ? null : new Set(row.event_types.split(' ')) })));
  }
  if (endpointsOf.size === 0) return;
  const insert = sql(
    `INSERT INTO webhook_deliveries (endpoint_id, event_id, subject, status, created_at, next_attempt_at) VALUES (?, ?, ?, 'pending', ?, ?)`,
  );
  let queued = false;
  for (const event of events) {
    for (const endpoint of endpointsOf.get(event.accountId) ?? []) {
      if (endpoint.types === null || endpoint.types.has(event.type)) {
        insert.run(endpoint.id, event.id, event.subject, event.createdAt, event.createdAt);
        queued = true;
      }
    }
  }
  // Told after this turn: a better-sqlite3 transaction is synchronous, so it
  // has committed (or rolled back: a wake that finds nothing) by then. An
  // import's transaction spans turns; its deliveries are found by the poll.
  if (queued) announcers.get(insert.database)?.announce();
}
