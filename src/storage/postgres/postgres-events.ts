import type { EventPageQuery, EventsRepository, NewEvent } from '../../events/events-repository.js';
import { arrayLiteral, isoTimestamp, type Sql } from './postgres-sql.js';
import { toStoredEvent, type EventRow } from '../event-rows.js';

/** The channel a commit that queues webhook deliveries notifies (postgres-notifications.ts listens). */
export const DELIVERIES_CHANNEL = 'store_orders_deliveries';

/** Transactions (their statement functions) that queued deliveries: the pool tells this process after their commit. */
const queuedIn = new WeakSet<Sql>();

export function queuedDeliveries(tx: Sql): boolean {
  return queuedIn.has(tx);
}

/** Records that `tx` queued deliveries (see queuedDeliveries). */
export function markQueued(tx: Sql): void {
  queuedIn.add(tx);
}

/**
 * Locks the accounts of a CTE `counts` (account_id, n) in id order and
 * bumps each one's events_position by its n: `bumped` gives each account's
 * base, the position before its first new event.
 */
export const BUMPED_FROM_COUNTS = `
locked AS (SELECT id FROM accounts WHERE id IN (SELECT account_id FROM counts) ORDER BY id FOR NO KEY UPDATE),
bumped AS (
  UPDATE accounts a SET events_position = a.events_position + c.n FROM counts c
  WHERE a.id = c.account_id AND a.id = ANY (ARRAY(SELECT id FROM locked))
  RETURNING a.id, a.events_position - c.n AS base
)`;

/**
 * The webhook fan-out of the new events in `source` (which names them `e`:
 * account_id, id, type, subject, created_at, ord): a delivery per event and
 * enabled endpoint of its account subscribed to its type, in the same
 * transaction (seq in event order).
 */
export const deliveredFrom = (source: string) => `
delivered AS (
  INSERT INTO webhook_deliveries (endpoint_id, event_id, subject, status, created_at, next_attempt_at)
  SELECT w.id, e.id, e.subject, 'pending', e.created_at, e.created_at
  FROM ${source}
  JOIN webhook_endpoints w ON w.account_id = e.account_id AND w.status = 'enabled'
    AND (w.event_types IS NULL OR (' ' || w.event_types || ' ') LIKE '% ' || e.type || ' %')
  ORDER BY e.ord, w.id
  RETURNING 1
)`;

/** NOTIFY (sent at commit, to every process that listens) when `delivered` queued any delivery; 1 when it did. */
export const TOLD = `(SELECT count(*) FROM (SELECT pg_notify('${DELIVERIES_CHANNEL}', '') FROM (SELECT 1 FROM delivered LIMIT 1) one) told)::integer`;

/**
 * The part shared by every events insert, after a CTE `e` of the new events
 * (account_id, id, type, subject, created_at, payload, ord).
 */
const EVENTS_FROM_E = `
counts AS (SELECT account_id, count(*) AS n FROM e GROUP BY account_id),${BUMPED_FROM_COUNTS},
inserted AS (
  INSERT INTO events (account_id, position, id, type, subject, created_at, payload)
  SELECT e.account_id, b.base + row_number() OVER (PARTITION BY e.account_id ORDER BY e.ord), e.id, e.type, e.subject, e.created_at, e.payload
  FROM e JOIN bumped b ON b.id = e.account_id
  RETURNING 1
),${deliveredFrom('e JOIN bumped b ON b.id = e.account_id')}
SELECT count(*)::integer AS n, ${TOLD} AS told
FROM inserted`;

/**
 * Writes events in one statement (one round trip however many). Each
 * account's positions come from bumping accounts.events_position under the
 * account's row lock, taken in id order (as the status-change group takes
 * them, so the two never deadlock): another transaction writing events of
 * the account waits here until this one ends, so positions commit in
 * increasing order.
 *
 * Must run inside the transaction of the change the events report: with
 * the import's copier (postgres-events-copy.ts: the same bump, lock order
 * and fan-out, for rows sent by COPY), the one place the outbox is written,
 * and what the webhook fan-out extends. `source` is a query of the new events' columns
 * (account_id, id, type, subject, created_at, payload, ord), `count` how
 * many it yields.
 */
async function insertEventsFrom(tx: Sql, source: string, values: readonly unknown[], count: number): Promise<void> {
  const [row] = await tx<{ n: number; told: number }>(`WITH e AS (${source}),${EVENTS_FROM_E}`, values);
  // Only an account that does not exist can drop an event; its change must not commit alone.
  if (row?.n !== count) throw new Error(`${count} events to write, ${row?.n ?? 0} written: an account is missing`);
  if (row.told > 0) markQueued(tx);
}

/** The events of insertEvents' six parameters, in their order. */
const UNNEST_EVENTS = `SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], string_to_array($6::text, chr(30)))
    WITH ORDINALITY AS e(account_id, id, type, subject, created_at, payload, ord)`;

/**
 * The payloads as one text, separated by U+001E (record separator), which
 * the statement splits with string_to_array: a payload is JSON, and JSON
 * text never holds a raw control character (RFC 8259 escapes U+0000 to
 * U+001F inside strings), so nothing needs escaping, where an array literal
 * escapes every quote (three quarters of the time an import spends writing
 * an event). A payload that did hold one is refused rather than split.
 */
function joinPayloads(events: readonly NewEvent[]): string {
  return events
    .map(({ id, payload }) => {
      if (payload.includes(PAYLOAD_SEPARATOR)) throw new Error(`event ${id}: its payload holds a raw U+001E, which JSON never does`);
      return payload;
    })
    .join(PAYLOAD_SEPARATOR);
}

const PAYLOAD_SEPARATOR = '\x1e';

/** Writes `events` (insertEventsFrom). */
export async function insertEvents(tx: Sql, events: readonly NewEvent[]): Promise<void> {
  if (events.length === 0) return;
  // Array literals written in one pass and the payloads joined (see
  // joinPayloads), rather than escaped element by element by node-postgres.
  const values = [
    arrayLiteral(events, (event) => event.accountId),
    arrayLiteral(events, (event) => event.id),
    arrayLiteral(events, (event) => event.type),
    arrayLiteral(events, (event) => event.subject),
    arrayLiteral(events, (event) => event.createdAt),
    joinPayloads(events),
  ];
  await insertEventsFrom(tx, UNNEST_EVENTS, values, events.length);
}

const COLUMNS = `account_id, position, id, type, subject, ${isoTimestamp('created_at')}, payload`;

export function createPostgresEventsRepository(sql: Sql): EventsRepository {
  return {
    async listPage(query) {
      const { text, values } = eventPageSql(query);
      return (await sql<EventRow>(text, values)).map(toStoredEvent);
    },
    async findForAccount(accountId, id) {
      const [row] = await sql<EventRow>(`SELECT ${COLUMNS} FROM events WHERE id = $1 AND account_id = $2`, [id, accountId]);
      return row && toStoredEvent(row);
    },
    async pruneBefore(before, limit) {
      const [row] = await sql<{ n: number }>(
        `WITH pruned AS (
           DELETE FROM events WHERE ctid = ANY (ARRAY(SELECT ctid FROM events WHERE created_at < $1 ORDER BY created_at LIMIT $2)) RETURNING 1
         )
         SELECT count(*)::integer AS n FROM pruned`,
        [before, limit],
      );
      return row?.n ?? 0;
    },
  };
}

function eventPageSql({ accountId, filter, afterPosition, limit }: EventPageQuery): { text: string; values: unknown[] } {
  const values: unknown[] = [accountId, afterPosition];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  const where = ['account_id = $1', 'position > $2'];
  if (filter.types !== undefined) where.push(`type IN (${filter.types.map((type) => param(type)).join(', ')})`);
  if (filter.createdFrom !== undefined) where.push(`created_at >= ${param(filter.createdFrom)}::timestamptz`);
  if (filter.createdTo !== undefined) where.push(`created_at < ${param(filter.createdTo)}::timestamptz`);
  if (filter.subject !== undefined) where.push(`subject = ${param(filter.subject)}`);
  return { text: `SELECT ${COLUMNS} FROM events WHERE ${where.join(' AND ')} ORDER BY position LIMIT ${param(limit)}`, values };
}
