import type { EventPageQuery, EventsRepository, NewEvent } from '../../events/events-repository.js';
import { arrayLiteral, isoTimestamp, type Sql } from './postgres-sql.js';
import { toStoredEvent, type EventRow } from '../event-rows.js';

/** The channel a commit of events for an account with an enabled webhook endpoint notifies (postgres-notifications.ts listens). */
export const DELIVERIES_CHANNEL = 'store_orders_deliveries';

/** Transactions (their statement functions) that wrote events for webhook endpoints: the pool tells this process after their commit. */
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
 * NOTIFY (sent at commit, to every process that listens) when an account of
 * `accounts` (a query of account ids) has an enabled webhook endpoint: one
 * probe of the endpoints index. 1 when it told. No delivery is written with
 * the events: the engine's claim makes them from each endpoint's cursor.
 */
export const toldFor = (accounts: string) => `(SELECT count(*) FROM (SELECT pg_notify('${DELIVERIES_CHANNEL}', '')
  WHERE EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.account_id IN (${accounts}) AND w.status = 'enabled')) told)::integer`;

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
)
-- No webhook delivery is written here: the engine's claim makes them from
-- the events after each endpoint's cursor (postgres-webhook-cursors.ts).
SELECT count(*)::integer AS n, ${toldFor('SELECT id FROM bumped')} AS told
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
 * the import's copier (postgres-events-copy.ts: the same bump and lock
 * order, for rows sent by COPY), the one place the outbox is written, from
 * which the engine's claim makes the webhook deliveries. `source` is a query
 * of the new events' columns (account_id, id, type, subject, created_at,
 * payload, ord), `count` how many it yields.
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
