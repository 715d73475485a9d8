import type BetterSqlite3 from 'better-sqlite3';
import type { DeliveriesQueued } from '../../delivery/deliveries-queued.js';
import { MATERIALIZE_BELOW_PENDING, MATERIALIZED_PER_ENDPOINT } from '../webhook-rows.js';
import type { Prepare } from './sqlite-util.js';

/** Each open database's announcement of new events for webhook endpoints (sqlite-storage.ts registers it). */
const announcers = new WeakMap<BetterSqlite3.Database, DeliveriesQueued>();

export function announceDeliveriesOf(db: BetterSqlite3.Database, deliveriesQueued: DeliveriesQueued): void {
  announcers.set(db, deliveriesQueued);
}

/**
 * The hand-off, inside the transaction that writes the events: no delivery
 * row is written here (the engine's claim makes them, materializeDeliveries);
 * when an account of the events has an enabled endpoint, this process's
 * engine is told. One indexed read per account, and none at all in a
 * process without an engine to tell (SQLite cannot tell another process:
 * its engines poll).
 */
export function announceEvents(sql: Prepare, accountIds: Iterable<number>): void {
  const hasEndpoint = sql("SELECT 1 FROM webhook_endpoints WHERE account_id = ? AND status = 'enabled' LIMIT 1").pluck();
  const announcer = announcers.get(hasEndpoint.database);
  if (announcer === undefined) return;
  for (const accountId of accountIds) {
    if (hasEndpoint.get(accountId) !== undefined) {
      // Told after this turn: a better-sqlite3 transaction is synchronous, so
      // it has committed (or rolled back: a wake that finds nothing) by then.
      // An import's transaction spans turns; its events are found by the poll.
      announcer.announce();
      return;
    }
  }
}

interface BehindEndpoint {
  id: string;
  account_id: bigint;
  event_types: string | null;
  delivered_through: bigint;
  events_position: bigint;
  /** Its pending deliveries, counted up to MATERIALIZE_BELOW_PENDING. */
  pending: bigint;
}

/**
 * Inside the caller's write transaction (the engine's claim): for each
 * enabled endpoint whose cursor is behind its account's last event position,
 * a delivery per event after the cursor that it subscribes to, and the
 * cursor moved past them, committed with the rows: for an endpoint with
 * fewer than MATERIALIZE_BELOW_PENDING pending deliveries, up to
 * `perEndpoint` pending. An endpoint with more (a slow or failing
 * receiver's backlog) gets none until they go, so a backlog costs the engine
 * only as it is delivered. SQLite has one writer: no other claim reads a cursor meanwhile.
 * One INSERT for every endpoint, in event order and then endpoint id (seq
 * follows positions, as the PostgreSQL statement orders them). Returns how
 * many deliveries were made.
 */
export function materializeDeliveries(sql: Prepare, perEndpoint = MATERIALIZED_PER_ENDPOINT): number {
  const rows = sql(
    `SELECT w.id, w.account_id, w.event_types, w.delivered_through, a.events_position,
            (SELECT count(*) FROM (SELECT 1 FROM webhook_deliveries d WHERE d.endpoint_id = w.id AND d.status = 'pending' LIMIT ?)) AS pending
     FROM webhook_endpoints w JOIN accounts a ON a.id = w.account_id
     WHERE w.status = 'enabled' AND a.events_position > w.delivered_through`,
  ).all(MATERIALIZE_BELOW_PENDING) as BehindEndpoint[];
  const behind = rows.filter((endpoint) => endpoint.pending < BigInt(MATERIALIZE_BELOW_PENDING));
  if (behind.length === 0) return 0;
  const windowOf = sql('SELECT count(*) AS n, max(position) AS last FROM (SELECT position FROM events WHERE account_id = ? AND position > ? ORDER BY position LIMIT ?)');
  const moveCursor = sql('UPDATE webhook_endpoints SET delivered_through = ? WHERE id = ?');
  const moved = behind.map((endpoint) => {
    const room = BigInt(perEndpoint) - endpoint.pending;
    const window = windowOf.get(endpoint.account_id, endpoint.delivered_through, room) as { n: bigint; last: bigint | null };
    // Fewer than asked: every event up to the account's last position was read (the rest were pruned, or there are no more).
    const through = window.n < room || window.last === null ? endpoint.events_position : window.last;
    moveCursor.run(through, endpoint.id);
    return { id: endpoint.id, account: String(endpoint.account_id), old: String(endpoint.delivered_through), through: String(through), types: endpoint.event_types };
  });
  return sql(
    `INSERT INTO webhook_deliveries (endpoint_id, event_id, subject, status, created_at, next_attempt_at)
     SELECT m.id, e.id, e.subject, 'pending', e.created_at, e.created_at
     FROM (SELECT value ->> '$.id' AS id, CAST(value ->> '$.account' AS INTEGER) AS account_id, CAST(value ->> '$.old' AS INTEGER) AS old,
                  CAST(value ->> '$.through' AS INTEGER) AS through, value ->> '$.types' AS event_types FROM json_each(?)) m
     JOIN events e ON e.account_id = m.account_id AND e.position > m.old AND e.position <= m.through
     WHERE m.event_types IS NULL OR (' ' || m.event_types || ' ') LIKE '% ' || e.type || ' %'
     ORDER BY e.position, m.id`,
  ).run(JSON.stringify(moved)).changes;
}

/** The creation time of the oldest event after an enabled endpoint's cursor: one the engine has not made a delivery of yet. */
export function oldestUnmaterialized(sql: Prepare): string | undefined {
  const oldest = sql(
    `SELECT min((SELECT e.created_at FROM events e WHERE e.account_id = w.account_id AND e.position > w.delivered_through ORDER BY e.position LIMIT 1))
     FROM webhook_endpoints w WHERE w.status = 'enabled'`,
  )
    .pluck()
    .get() as string | null;
  return oldest ?? undefined;
}
