import { MATERIALIZE_BELOW_PENDING, MATERIALIZED_PER_ENDPOINT } from '../webhook-rows.js';
import type { Sql } from './postgres-sql.js';

/**
 * The deliveries of the events after each enabled endpoint's cursor, in one
 * statement (so the cursor and the rows commit together, and it works
 * through a transaction-mode pooler):
 *
 * - `behind`: the enabled endpoints whose cursor is behind their account's
 *   last position, locked in id order, SKIP LOCKED: an endpoint another
 *   engine is materialising (or settling) now is left to it, or to the next
 *   claim. The account's position is its committed value: positions of one
 *   account commit in increasing order (postgres-events.ts), so every event
 *   up to it is visible to this statement and none after the cursor is
 *   skipped.
 * - `pending`, `rooms`: for an endpoint with fewer than $2 pending
 *   deliveries (counted up to $2), $1 less those; for one with more (a slow
 *   or failing receiver's backlog) none, until they go, so a backlog costs
 *   only as it is delivered.
 * - `windows`: up to that many events after the cursor; the cursor moves to
 *   the last of them, or to the account's last position when fewer came
 *   (the rest were pruned, or there were no more).
 * - `moved`: compare-and-set of the cursor (`delivered_through = old`): a
 *   row another statement moved on since this one's snapshot is not matched,
 *   and then nothing is inserted for it. The insert depends on the update's
 *   success, so no event is ever given two deliveries to one endpoint by
 *   two engines.
 * - `inserted`: a delivery per event of the window the endpoint subscribes
 *   to, in position order (seq follows positions).
 */
const MATERIALIZE_DELIVERIES = `WITH behind AS (
    SELECT w.id, w.account_id, w.delivered_through AS old, a.events_position AS last
    FROM webhook_endpoints w JOIN accounts a ON a.id = w.account_id
    WHERE w.status = 'enabled' AND a.events_position > w.delivered_through
    ORDER BY w.id
    FOR NO KEY UPDATE OF w SKIP LOCKED),
  pending AS (
    SELECT b.*, (SELECT count(*) FROM (SELECT 1 FROM webhook_deliveries d WHERE d.endpoint_id = b.id AND d.status = 'pending' LIMIT $2) p) AS n
    FROM behind b),
  rooms AS (
    SELECT p.*, CASE WHEN p.n < $2 THEN $1 - p.n ELSE 0 END AS room FROM pending p),
  windows AS (
    SELECT b.id, b.old, CASE WHEN s.n < b.room OR s.through IS NULL THEN b.last ELSE s.through END AS through
    FROM rooms b CROSS JOIN LATERAL (
      SELECT count(*) AS n, max(x.position) AS through
      FROM (SELECT e.position FROM events e WHERE e.account_id = b.account_id AND e.position > b.old ORDER BY e.position LIMIT b.room) x) s
    WHERE b.room > 0),
  moved AS (
    UPDATE webhook_endpoints w SET delivered_through = v.through FROM windows v
    WHERE w.id = v.id AND w.delivered_through = v.old
    RETURNING w.id, w.account_id, w.event_types, v.old, v.through),
  inserted AS (
    INSERT INTO webhook_deliveries (endpoint_id, event_id, subject, status, created_at, next_attempt_at)
    SELECT m.id, e.id, e.subject, 'pending', e.created_at, e.created_at
    FROM moved m JOIN events e ON e.account_id = m.account_id AND e.position > m.old AND e.position <= m.through
    WHERE m.event_types IS NULL OR (' ' || m.event_types || ' ') LIKE '% ' || e.type || ' %'
    ORDER BY e.position, m.id
    RETURNING 1)
SELECT count(*)::integer AS n FROM inserted`;

/** Makes the deliveries of the events after each enabled endpoint's cursor (MATERIALIZE_DELIVERIES); returns how many. */
export async function materializeDeliveries(sql: Sql, perEndpoint = MATERIALIZED_PER_ENDPOINT): Promise<number> {
  const [row] = await sql<{ n: number }>(MATERIALIZE_DELIVERIES, [perEndpoint, MATERIALIZE_BELOW_PENDING]);
  return row?.n ?? 0;
}

/**
 * The creation time of the oldest event after an enabled endpoint's cursor
 * (one no claim has made a delivery of yet), as a timestamptz expression.
 */
export const OLDEST_UNMATERIALIZED = `(SELECT min((SELECT e.created_at FROM events e WHERE e.account_id = w.account_id AND e.position > w.delivered_through ORDER BY e.position LIMIT 1))
  FROM webhook_endpoints w WHERE w.status = 'enabled')`;
