import type { QueryResultRow } from 'pg';

/** Runs one statement on the pool and returns its rows. */
export type Sql = <Row extends QueryResultRow = QueryResultRow>(text: string, values?: readonly unknown[]) => Promise<Row[]>;

/**
 * A timestamptz column as ISO 8601 UTC text with milliseconds, the exact
 * format the SQLite adapter stores, aliased to the column's own name.
 */
export function isoTimestamp(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS ${column}`;
}

/**
 * Runs `work` in one transaction on one pooled connection: COMMIT when it
 * resolves, ROLLBACK when it throws.
 */
export type Transaction = <T>(work: (sql: Sql) => Promise<T>) => Promise<T>;
