import type Database from 'better-sqlite3';
import { NotFoundError } from '../../errors/errors.js';
import type { NewRequestLog, RequestLogFilters, RequestLogsRepository } from '../../request-logs/request-logs-repository.js';
import { REQUEST_LOG_INSERT_COLUMNS, requestLogColumns, toRequestLog, type RequestLogRow } from '../request-log-rows.js';
import type { UsageIncrement } from '../../usage/usage-counters.js';
import { sqliteConstraint, statementCache } from './sqlite-util.js';
import type { SqliteSynchronous } from '../../config/config.js';
import { addUsage } from './sqlite-usage-repository.js';

const SELECT = `SELECT l.id, l.account_id, l.at, l.method, l.path, l.status, l.error_code, l.duration_ms, l.request_id, l.key_id, k.start AS key_start,
  l.client_address, l.user_agent, l.api_version, l.error_body
  FROM request_logs l LEFT JOIN api_keys k ON k.id = l.key_id`;

/**
 * The order id a stored path starts with (the digits after /vN/store/orders/)
 * and the paths that may name one: migration 0026's index, character for
 * character (SQLite uses an expression index only for the same expression).
 * The rule itself: request-logs/request-log-orders.ts.
 */
const ORDER_REF = "substr(path, 18, length(substr(path, 18)) - length(ltrim(substr(path, 18), '0123456789')))";
const NAMES_ORDER = "path GLOB '/v[0-9]/store/orders/[0-9]*'";

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
  db.pragma('synchronous = NORMAL');
  try {
    write();
  } finally {
    db.pragma('synchronous = FULL');
  }
}

/** The WHERE clause of a page and its values, in order. */
function where(accountId: number, filters: RequestLogFilters, before: { at: string; id: bigint } | undefined): { clause: string; values: unknown[] } {
  const parts = ['l.account_id = ?'];
  const values: unknown[] = [accountId];
  const add = (part: string, ...more: unknown[]) => {
    parts.push(part);
    values.push(...more);
  };
  if (filters.status !== undefined) add('l.status BETWEEN ? AND ?', filters.status.min, filters.status.max);
  if (filters.method !== undefined) add('l.method = ?', filters.method);
  if (filters.pathPrefix !== undefined) add('substr(l.path, 1, ?) = ?', filters.pathPrefix.length, filters.pathPrefix);
  if (filters.requestId !== undefined) add('l.request_id = ?', filters.requestId);
  if (filters.keyId !== undefined) add('l.key_id = ?', filters.keyId);
  if (filters.since !== undefined) add('l.at >= ?', filters.since);
  if (filters.until !== undefined) add('l.at < ?', filters.until);
  if (before !== undefined) add('(l.at, l.id) < (?, ?)', before.at, before.id);
  return { clause: parts.join(' AND '), values };
}

export function createSqliteRequestLogsRepository(db: Database.Database, synchronous: SqliteSynchronous = 'full'): RequestLogsRepository {
  const sql = statementCache(db);
  // The entries and the counters they add to, in one transaction: the usage never counts a request the logs lost, nor the reverse.
  const append = db.transaction((entries: readonly NewRequestLog[], usage: readonly UsageIncrement[]) => {
    const insert = sql(`INSERT INTO request_logs (${REQUEST_LOG_INSERT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    for (const entry of entries) insert.run(...requestLogColumns(entry));
    addUsage(sql, usage);
  });

  return {
    async append(entries, usage) {
      if (entries.length === 0 && usage.length === 0) return;
      try {
        if (synchronous === 'full') withoutSync(db, () => append(entries, usage));
        else append(entries, usage);
      } catch (error) {
        if (sqliteConstraint(error) === 'SQLITE_CONSTRAINT_FOREIGNKEY') throw new NotFoundError('account_not_found', 'A request log names an account that does not exist.');
        throw error;
      }
    },
    async listPage({ accountId, filters, before, limit }) {
      const { clause, values } = where(accountId, filters, before);
      const rows = sql(`${SELECT} WHERE ${clause} ORDER BY l.at DESC, l.id DESC LIMIT ?`).all(...values, limit) as RequestLogRow[];
      return rows.map(toRequestLog);
    },
    async listForOrder({ accountId, orderId, limit }) {
      const id = orderId.toString();
      // After the id: the path's end, a slash or the query (18 + its length is the character after it).
      const rows = sql(
        `${SELECT} WHERE l.account_id = ? AND ${NAMES_ORDER} AND ${ORDER_REF} = ? AND substr(path, ?, 1) IN ('', '/', '?') ORDER BY l.at DESC, l.id DESC LIMIT ?`,
      ).all(accountId, id, 18 + id.length, limit) as RequestLogRow[];
      return rows.map(toRequestLog);
    },
    async findById(accountId, id) {
      const row = sql(`${SELECT} WHERE l.account_id = ? AND l.id = ?`).get(accountId, id) as RequestLogRow | undefined;
      return row === undefined ? undefined : toRequestLog(row);
    },
    async deleteOlderThan(before, limit) {
      // Ids grow with time (a batch is written within a second of its requests): the oldest rows are the lowest ids, so
      // the walk by rowid stops at the first young row, with no index on at (each index costs every logged request).
      const young = sql('SELECT id FROM request_logs WHERE at >= ? ORDER BY id LIMIT 1').get(before) as { id: bigint } | undefined;
      return young === undefined
        ? sql('DELETE FROM request_logs WHERE id IN (SELECT id FROM request_logs WHERE at < ? ORDER BY id LIMIT ?)').run(before, limit).changes
        : sql('DELETE FROM request_logs WHERE id IN (SELECT id FROM request_logs WHERE id < ? AND at < ? ORDER BY id LIMIT ?)').run(young.id, before, limit).changes;
    },
  };
}
