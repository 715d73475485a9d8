import { NotFoundError } from '../../errors/errors.js';
import { entriesOf } from '../../request-logs/stored-requests.js';
import type { RequestLogFilters, RequestLogsRepository } from '../../request-logs/request-logs-repository.js';
import { REQUEST_LOG_INSERT_COLUMNS, requestLogColumns, toRequestLog, type RequestLogRow } from '../request-log-rows.js';
import { FOREIGN_KEY_VIOLATION, sqlState } from './postgres-errors.js';
import { arrayLiteral, qualified, type Sql } from './postgres-sql.js';
import { usageCte } from './postgres-usage-repository.js';

const SELECT = `SELECT l.id::text AS id, l.account_id, ${qualified('l', 'at')}, l.method, l.path, l.status, l.error_code, l.duration_ms, l.request_id,
  l.key_id, k.start AS key_start, l.client_address, l.user_agent, l.api_version, l.error_body
  FROM request_logs l LEFT JOIN api_keys k ON k.id = l.key_id`;

/**
 * The order id a stored path starts with (the digits after /vN/store/orders/)
 * and the paths that may name one: migration 0026's partial index, written
 * the same way so that the planner matches both. The rule itself:
 * request-logs/request-log-orders.ts.
 */
const ORDER_REF = "substr(path, 18, length(substr(path, 18)) - length(ltrim(substr(path, 18), '0123456789')))";
const NAMES_ORDER = "path ~ '^/v[0-9]/store/orders/[0-9]'";

/** The column types, in requestLogColumns() order, for the arrays unnest() reads. */
const ARRAY_TYPES = ['bigint', 'timestamptz', 'text', 'text', 'smallint', 'text', 'float8', 'text', 'bigint', 'text', 'text', 'text', 'text'] as const;

const INSERT = `INSERT INTO request_logs (${REQUEST_LOG_INSERT_COLUMNS})
  SELECT * FROM unnest(${ARRAY_TYPES.map((type, i) => `$${i + 1}::${type}[]`).join(', ')})`;

/**
 * The WHERE clause of a page and its values. The status bounds are written
 * as literals (integers the service parsed), so that the planner can prove
 * a page of errors covered by the partial index of statuses >= 400.
 */
function where(accountId: number, filters: RequestLogFilters, before: { at: string; id: bigint } | undefined): { clause: string; values: unknown[] } {
  const parts = ['l.account_id = $1'];
  const values: unknown[] = [accountId];
  const add = (part: (n: number) => string, value: unknown) => {
    values.push(value);
    parts.push(part(values.length));
  };
  if (filters.status !== undefined) parts.push(`l.status BETWEEN ${Math.trunc(filters.status.min)} AND ${Math.trunc(filters.status.max)}`);
  if (filters.method !== undefined) add((n) => `l.method = $${n}`, filters.method);
  if (filters.pathPrefix !== undefined) add((n) => `starts_with(l.path, $${n})`, filters.pathPrefix);
  if (filters.requestId !== undefined) add((n) => `l.request_id = $${n}`, filters.requestId);
  if (filters.keyId !== undefined) add((n) => `l.key_id = $${n}`, filters.keyId);
  if (filters.since !== undefined) add((n) => `l.at >= $${n}::timestamptz`, filters.since);
  if (filters.until !== undefined) add((n) => `l.at < $${n}::timestamptz`, filters.until);
  if (before !== undefined) {
    values.push(before.at, before.id.toString());
    parts.push(`(l.at, l.id) < ($${values.length - 1}::timestamptz, $${values.length}::bigint)`);
  }
  return { clause: parts.join(' AND '), values };
}

export function createPostgresRequestLogsRepository(sql: Sql): RequestLogsRepository {
  return {
    async append(requests, usage) {
      if (requests.length === 0 && usage.length === 0) return;
      const rows = entriesOf(requests).map(requestLogColumns);
      // Array literals written in one pass (postgres-sql.ts): cheaper than node-postgres's own escaping of every element.
      const columns = ARRAY_TYPES.map((_type, i) => arrayLiteral(rows, (row) => row[i]));
      // The rows and the counters they add to in one statement (one transaction): the usage never counts a request the logs lost.
      const counters = usageCte(usage, columns.length + 1);
      try {
        await sql(`WITH ${counters.cte}, logs AS (${INSERT} RETURNING 1) SELECT 1`, [...columns, ...counters.values]);
      } catch (error) {
        if (sqlState(error) === FOREIGN_KEY_VIOLATION) throw new NotFoundError('account_not_found', 'A request log names an account that does not exist.');
        throw error;
      }
    },
    async listPage({ accountId, filters, before, limit }) {
      const { clause, values } = where(accountId, filters, before);
      const rows = await sql<RequestLogRow>(`${SELECT} WHERE ${clause} ORDER BY l.at DESC, l.id DESC LIMIT $${values.length + 1}`, [...values, limit]);
      return rows.map(toRequestLog);
    },
    async listForOrder({ accountId, orderId, limit }) {
      const id = orderId.toString();
      // After the id: the path's end, a slash or the query (18 + its length is the character after it).
      const rows = await sql<RequestLogRow>(
        `${SELECT} WHERE l.account_id = $1 AND ${NAMES_ORDER} AND ${ORDER_REF} = $2 AND substr(path, $3, 1) IN ('', '/', '?')
         ORDER BY l.at DESC, l.id DESC LIMIT $4`,
        [accountId, id, 18 + id.length, limit],
      );
      return rows.map(toRequestLog);
    },
    async findById(accountId, id) {
      const [row] = await sql<RequestLogRow>(`${SELECT} WHERE l.account_id = $1 AND l.id = $2`, [accountId, id.toString()]);
      return row === undefined ? undefined : toRequestLog(row);
    },
    async deleteOlderThan(before, limit) {
      const rows = await sql<{ deleted: string }>(
        `WITH gone AS (
           DELETE FROM request_logs WHERE id IN (SELECT id FROM request_logs WHERE at < $1 ORDER BY at LIMIT $2) RETURNING 1
         )
         SELECT count(*)::text AS deleted FROM gone`,
        [before, limit],
      );
      return Number(rows[0]?.deleted ?? 0);
    },
  };
}
