import type Database from 'better-sqlite3';
import { NotFoundError } from '../../errors/errors.js';
import type { StoredRequests, RequestLog, RequestLogFilters, RequestLogPosition, RequestLogsRepository } from '../../request-logs/request-logs-repository.js';
import { orderIdInPath } from '../../request-logs/request-log-orders.js';
import type { UsageIncrement } from '../../usage/usage-counters.js';
import { sqliteConstraint, statementCache, type Prepare } from './sqlite-util.js';
import type { SqliteSynchronous } from '../../config/config.js';
import { addUsage } from './sqlite-usage-repository.js';
import { listable, uuidSearched } from './sqlite-request-log-ids.js';
import { statusClassBits } from './sqlite-request-log-summary.js';
import { asWritten, BATCH_COLUMNS, BATCH_ENTRIES_MAX, packBatch, packEntries, unpackBatch, type BatchColumns, type UnpackedEntry } from './sqlite-request-log-batches.js';
import { later, WINDOW_MS, windowOfTime } from './sqlite-request-log-times.js';

/**
 * Runs `write` with synchronous=NORMAL: its commit is not flushed to disk
 * (fsync) at once but with the next commit that is, or the next checkpoint.
 * A batch of request logs is written each second; waiting for the disk each
 * time cost every logged request about 1.7 µs of the serving thread
 * (BENCHMARKS.md). In WAL mode nothing is lost when the process is killed,
 * only the last batches on a power loss (docs/request-logs.md), and the
 * database stays consistent: the usage counters go in the same commit.
 */
function withoutSync(db: Database.Database, write: () => void): void {
  // exec, not pragma(): no statement object each time (SQLite applies this pragma when it is prepared, so it cannot be kept).
  db.exec('PRAGMA synchronous = NORMAL');
  try {
    write();
  } finally {
    db.exec('PRAGMA synchronous = FULL');
  }
}

interface BatchRow {
  id: bigint;
  last_at: string;
  request_ids: string;
  entries: string;
  request_uuids: Uint8Array | null;
}

/** The batches that may hold a matching entry (their summaries, sqlite-request-log-batches.ts), and the values of the clause. */
function batchesMatching(accountId: number, filters: RequestLogFilters, before: RequestLogPosition | undefined): { clause: string; values: unknown[] } {
  const parts = ['account_id = ?'];
  const values: unknown[] = [accountId];
  const add = (part: string, ...more: unknown[]) => {
    parts.push(part);
    values.push(...more);
  };
  const { status } = filters;
  if (status !== undefined) {
    add('(classes & ?) != 0', statusClassBits(status.min, status.max));
    if (status.min === status.max) add('instr(statuses, char(10) || ? || char(10)) > 0', String(status.min));
  }
  if (filters.method !== undefined) add('instr(methods, char(10) || ? || char(10)) > 0', filters.method);
  if (filters.pathPrefix !== undefined) add('instr(paths, char(10) || ?) > 0', filters.pathPrefix);
  // An id that is not listable is in its entry, not in the list (sqlite-request-log-batches.ts): every batch is unpacked.
  if (filters.requestId !== undefined) {
    // A UUID is in request_uuids, or, in a batch written before them, in request_ids (NULL OR x is x).
    const uuid = uuidSearched(filters.requestId);
    if (uuid !== undefined) add('(instr(request_uuids, ?) > 0 OR instr(request_ids, char(10) || ? || char(10)) > 0)', uuid, filters.requestId);
    else if (listable(filters.requestId)) add('instr(request_ids, char(10) || ? || char(10)) > 0', filters.requestId);
  }
  if (filters.keyId !== undefined) add('instr(key_ids, char(10) || ? || char(10)) > 0', String(filters.keyId));
  // A batch's entries lie within WINDOW_MS: one holding an entry before an instant ends before the instant plus WINDOW_MS,
  // which bounds the walk of the index (account_id, last_at, id) from above.
  if (filters.since !== undefined) add('last_at >= ?', filters.since);
  if (filters.until !== undefined) add('first_at < ? AND last_at < ?', filters.until, later(filters.until, WINDOW_MS));
  if (before !== undefined) add('first_at <= ? AND last_at < ?', before.at, later(before.at, WINDOW_MS));
  return { clause: parts.join(' AND '), values };
}

/** Whether an entry matches the filters exactly (a batch's summary only says it may). */
function matches(entry: UnpackedEntry, filters: RequestLogFilters, before: RequestLogPosition | undefined): boolean {
  const { status } = filters;
  if (status !== undefined && (entry.status < status.min || entry.status > status.max)) return false;
  if (filters.method !== undefined && entry.method !== filters.method) return false;
  if (filters.pathPrefix !== undefined && !entry.path.startsWith(filters.pathPrefix)) return false;
  if (filters.requestId !== undefined && entry.requestId !== filters.requestId) return false;
  if (filters.keyId !== undefined && entry.keyId !== filters.keyId) return false;
  if (filters.since !== undefined && entry.at < filters.since) return false;
  if (filters.until !== undefined && entry.at >= filters.until) return false;
  return before === undefined || entry.at < before.at || (entry.at === before.at && entry.id < before.id);
}

/** Newest first: by time, then id. */
const newestFirst = (a: UnpackedEntry, b: UnpackedEntry): number => (a.at === b.at ? (a.id > b.id ? -1 : a.id < b.id ? 1 : 0) : a.at > b.at ? -1 : 1);

/**
 * The `limit` newest matching entries of the batches `rows` yields, newest
 * last time first. Batches overlap in time a little (a slow request is
 * written with a later batch than a fast one that arrived after it), so the
 * walk goes on until the next batch's newest entry is older than the
 * limit-th found.
 */
function newestOf(rows: Iterable<BatchRow>, accountId: number, keep: (entry: UnpackedEntry) => boolean, limit: number): UnpackedEntry[] {
  let found: UnpackedEntry[] = [];
  for (const row of rows) {
    const last = found[limit - 1];
    if (last !== undefined && row.last_at < last.at) break;
    for (const entry of unpackBatch(row.id, accountId, row.entries, row.request_ids, row.request_uuids)) if (entry !== null && keep(entry)) found.push(entry);
    found.sort(newestFirst);
    if (found.length > limit) found = found.slice(0, limit);
  }
  return found;
}

/** The entries with their keys' visible starts (a key since deleted has none). */
function withKeyStarts(sql: Prepare, entries: UnpackedEntry[]): RequestLog[] {
  const keyIds = [...new Set(entries.flatMap((entry) => (entry.keyId === undefined ? [] : [entry.keyId])))];
  if (keyIds.length === 0) return entries;
  const rows = sql('SELECT id, start FROM api_keys WHERE id IN (SELECT value FROM json_each(?))').all(JSON.stringify(keyIds)) as { id: bigint; start: string }[];
  const starts = new Map(rows.map((row) => [Number(row.id), row.start]));
  return entries.map((entry) => {
    const start = entry.keyId === undefined ? undefined : starts.get(entry.keyId);
    return start === undefined ? entry : { ...entry, keyStart: start };
  });
}

const PLACEHOLDERS = BATCH_COLUMNS.split(',').map(() => '?').join(', ');
const values = (batch: BatchColumns) => [batch.first_at, batch.last_at, batch.live, batch.classes, batch.statuses, batch.methods, batch.key_ids, batch.paths, batch.request_ids, batch.entries, batch.request_uuids];

/**
 * The requests as their batches: the indexes in `requests` of one account's
 * requests that arrived in one WINDOW_MS window, in the order written (almost
 * always one batch per account: a flush holds a second's requests), at most
 * BATCH_ENTRIES_MAX each.
 */
function asBatches(requests: StoredRequests): { accountId: number; rows: number[] }[] {
  const groups = new Map<string, { accountId: number; rows: number[] }>();
  // Runs of one account and window: the last one's group serves the next, with no key made.
  let lastAccount = Number.NaN;
  let lastWindow = Number.NaN;
  let last: number[] = [];
  for (let n = 0; n < requests.length; n++) {
    const accountId = requests.accountId[n] as number;
    const at = requests.at[n] as number;
    // Still the last one's window (NaN for a time not in the stored form): no remainders of a double per request.
    if (accountId !== lastAccount || !(at >= lastWindow && at < lastWindow + WINDOW_MS)) {
      const window = windowOfTime(at);
      const key = `${accountId} ${window}`;
      let group = groups.get(key);
      if (group === undefined) groups.set(key, (group = { accountId, rows: [] }));
      [lastAccount, lastWindow, last] = [accountId, window, group.rows];
    }
    last.push(n);
  }
  const batches: { accountId: number; rows: number[] }[] = [];
  for (const { accountId, rows } of groups.values()) {
    for (let start = 0; start < rows.length; start += BATCH_ENTRIES_MAX) batches.push({ accountId, rows: rows.slice(start, start + BATCH_ENTRIES_MAX) });
  }
  return batches;
}

export function createSqliteRequestLogsRepository(db: Database.Database, synchronous: SqliteSynchronous = 'full'): RequestLogsRepository {
  const sql = statementCache(db);
  // One row per account and batch (sqlite-request-log-batches.ts), and the counters they add to, in one transaction: the
  // usage never counts a request the logs lost, nor the reverse.
  const append = db.transaction((requests: StoredRequests, usage: readonly UsageIncrement[]) => {
    const insert = sql(`INSERT INTO request_log_batches (account_id, ${BATCH_COLUMNS}) VALUES (?, ${PLACEHOLDERS}) RETURNING id`);
    const named = sql('INSERT OR IGNORE INTO request_log_orders (account_id, order_id, batch_id) VALUES (?, ?, ?)');
    for (const { accountId, rows } of asBatches(requests)) {
      const { columns, orders } = packBatch(requests, rows);
      const batchId = (insert.get(accountId, ...values(columns)) as { id: bigint }).id;
      for (const order of orders) named.run(accountId, order, batchId);
    }
    addUsage(sql, usage);
  });

  const prune = db.transaction((before: string, limit: number): number => {
    let deleted = 0;
    // Only the summaries: a batch wholly older goes without being read; only one that straddles `before` is unpacked.
    const rows = sql('SELECT id, account_id, last_at, live FROM request_log_batches WHERE first_at < ? ORDER BY first_at, id LIMIT ?').all(before, limit) as {
      id: bigint;
      account_id: bigint;
      last_at: string;
      live: bigint;
    }[];
    for (const row of rows) {
      const room = limit - deleted;
      if (room <= 0) break;
      if (row.last_at < before && Number(row.live) <= room) {
        sql('DELETE FROM request_log_batches WHERE id = ?').run(row.id);
        deleted += Number(row.live);
        continue;
      }
      // Part of the batch is old, or more of it than this round may delete: the oldest go, the others keep their ids.
      const packed = sql('SELECT entries, request_ids, request_uuids FROM request_log_batches WHERE id = ?').get(row.id) as Pick<BatchRow, 'entries' | 'request_ids' | 'request_uuids'>;
      const entries = unpackBatch(row.id, Number(row.account_id), packed.entries, packed.request_ids, packed.request_uuids);
      const old = entries
        .filter((entry): entry is UnpackedEntry => entry !== null && entry.at < before)
        .sort((a, b) => -newestFirst(a, b))
        .slice(0, room);
      const going = new Set(old.map((entry) => entry.id));
      const kept = entries.map((entry) => (entry === null || going.has(entry.id) ? null : asWritten(entry)));
      if (kept.every((entry) => entry === null)) sql('DELETE FROM request_log_batches WHERE id = ?').run(row.id);
      else sql(`UPDATE request_log_batches SET (${BATCH_COLUMNS}) = (${PLACEHOLDERS}) WHERE id = ?`).run(...values(packEntries(kept).columns), row.id);
      deleted += going.size;
    }
    return deleted;
  });

  return {
    async append(requests, usage) {
      if (requests.length === 0 && usage.length === 0) return;
      try {
        if (synchronous === 'full') withoutSync(db, () => append(requests, usage));
        else append(requests, usage);
      } catch (error) {
        if (sqliteConstraint(error) === 'SQLITE_CONSTRAINT_FOREIGNKEY') throw new NotFoundError('account_not_found', 'A request log names an account that does not exist.');
        throw error;
      }
    },
    async listPage({ accountId, filters, before, limit }) {
      const { clause, values: bound } = batchesMatching(accountId, filters, before);
      const rows = sql(`SELECT id, last_at, request_ids, request_uuids, entries FROM request_log_batches WHERE ${clause} ORDER BY last_at DESC, id DESC`).iterate(...bound) as IterableIterator<BatchRow>;
      return withKeyStarts(sql, newestOf(rows, accountId, (entry) => matches(entry, filters, before), limit));
    },
    async listForOrder({ accountId, orderId, limit }) {
      // The batches whose paths name the order (request_log_orders, the order page's index); a batch pruned in part may be named still.
      const rows = sql(
        'SELECT b.id, b.last_at, b.request_ids, b.request_uuids, b.entries FROM request_log_orders o JOIN request_log_batches b ON b.id = o.batch_id WHERE o.account_id = ? AND o.order_id = ? ORDER BY b.last_at DESC, b.id DESC',
      ).iterate(accountId, orderId) as IterableIterator<BatchRow>;
      return withKeyStarts(sql, newestOf(rows, accountId, (entry) => orderIdInPath(entry.path) === orderId, limit));
    },
    async findById(accountId, id) {
      if (id < 0n) return undefined;
      const batchId = id / BigInt(BATCH_ENTRIES_MAX);
      const row = sql('SELECT id, last_at, request_ids, request_uuids, entries FROM request_log_batches WHERE id = ? AND account_id = ?').get(batchId, accountId) as BatchRow | undefined;
      const entry = row === undefined ? undefined : unpackBatch(row.id, accountId, row.entries, row.request_ids, row.request_uuids)[Number(id % BigInt(BATCH_ENTRIES_MAX))];
      return entry === undefined || entry === null ? undefined : withKeyStarts(sql, [entry])[0];
    },
    async deleteOlderThan(before, limit) {
      return prune(before, limit);
    },
  };
}
