import type BetterSqlite3 from 'better-sqlite3';
import type { EventPageQuery, EventsRepository, NewEvent } from '../../events/events-repository.js';
import { statementCache, type Prepare } from './sqlite-util.js';
import { announceEvents } from './sqlite-webhook-cursors.js';
import { toStoredEvent, type EventRow } from '../event-rows.js';

const INSERT_HEAD = 'INSERT INTO events (account_id, position, id, type, subject, created_at, payload) VALUES';
const INSERT_TUPLE = '(?, ?, ?, ?, ?, ?, ?)';
/** Rows per multi-row INSERT (7 parameters each): an import writes its events in chunks, as it writes its orders. */
const INSERT_CHUNK = 50;
/** The INSERT of `rows` events (each size prepared once per connection by the statement cache). */
const insertSql = (rows: number) => `${INSERT_HEAD} ${Array.from({ length: rows }, () => INSERT_TUPLE).join(', ')}`;
const INSERT_CHUNK_SQL = insertSql(INSERT_CHUNK);

/**
 * Writes events inside the caller's open write transaction, on its
 * connection (`sql` is that connection's statement cache): the one place the
 * outbox is written (webhook deliveries are made from it later, by the
 * engine's claim: sqlite-webhook-cursors.ts). Each account's
 * positions come from bumping accounts.events_position; SQLite has one
 * writer at a time, so positions commit in increasing order.
 */
export function insertEvents(sql: Prepare, events: readonly NewEvent[]): void {
  if (events.length === 0) return;
  const counts = new Map<number, number>();
  for (const event of events) counts.set(event.accountId, (counts.get(event.accountId) ?? 0) + 1);
  const next = new Map<number, bigint>();
  for (const [accountId, count] of counts) {
    const last = sql('UPDATE accounts SET events_position = events_position + ? WHERE id = ? RETURNING events_position').pluck().get(count, accountId) as
      | bigint
      | undefined;
    // Only an account that does not exist has no row; its change must not commit alone.
    if (last === undefined) throw new Error(`events for account ${accountId}, which does not exist`);
    next.set(accountId, last - BigInt(count) + 1n);
  }
  const args = (event: NewEvent) => {
    const position = next.get(event.accountId) ?? 0n;
    next.set(event.accountId, position + 1n);
    return [event.accountId, position, event.id, event.type, event.subject, event.createdAt, event.payload] as const;
  };
  // Whole chunks, then the rest in one statement: a group commit of 64 cancels is two statements.
  let start = 0;
  for (; start + INSERT_CHUNK <= events.length; start += INSERT_CHUNK) {
    sql(INSERT_CHUNK_SQL).run(events.slice(start, start + INSERT_CHUNK).flatMap(args));
  }
  if (start < events.length) sql(insertSql(events.length - start)).run(events.slice(start).flatMap(args));
  announceEvents(sql, counts.keys());
}

const COLUMNS = 'account_id, position, id, type, subject, created_at, payload';

export function createSqliteEventsRepository(db: BetterSqlite3.Database): EventsRepository {
  const sql = statementCache(db);
  return {
    async listPage(query) {
      const { text, args } = eventPageSql(query);
      return (sql(text).all(...args) as EventRow[]).map(toStoredEvent);
    },
    async findForAccount(accountId, id) {
      const row = sql(`SELECT ${COLUMNS} FROM events WHERE id = ? AND account_id = ?`).get(id, accountId) as EventRow | undefined;
      return row && toStoredEvent(row);
    },
    async pruneBefore(before, limit) {
      const result = sql('DELETE FROM events WHERE (account_id, position) IN (SELECT account_id, position FROM events WHERE created_at < ? ORDER BY created_at LIMIT ?)').run(before, limit);
      return result.changes;
    },
  };
}

function eventPageSql({ accountId, filter, afterPosition, limit }: EventPageQuery): { text: string; args: unknown[] } {
  const where = ['account_id = ?', 'position > ?'];
  const args: unknown[] = [accountId, afterPosition];
  if (filter.types !== undefined) {
    where.push(`type IN (${filter.types.map(() => '?').join(', ')})`);
    args.push(...filter.types);
  }
  // created_at is normalised ISO 8601 UTC text of fixed width: text order is time order.
  if (filter.createdFrom !== undefined) {
    where.push('created_at >= ?');
    args.push(filter.createdFrom);
  }
  if (filter.createdTo !== undefined) {
    where.push('created_at < ?');
    args.push(filter.createdTo);
  }
  if (filter.subject !== undefined) {
    where.push('subject = ?');
    args.push(filter.subject);
  }
  args.push(limit);
  return { text: `SELECT ${COLUMNS} FROM events WHERE ${where.join(' AND ')} ORDER BY position LIMIT ?`, args };
}
