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

/** A qualified timestamptz column (`alias.column`) as isoTimestamp formats it, aliased to the bare column name. */
export function qualified(alias: string, column: string): string {
  return `${isoTimestamp(`${alias}.${column}`).replace(/ AS .*$/, '')} AS ${column}`;
}

/**
 * Runs `work` in one transaction on one pooled connection: COMMIT when it
 * resolves, ROLLBACK when it throws.
 */
export type Transaction = <T>(work: (sql: Sql, copyIn: CopyIn) => Promise<T>) => Promise<T>;

/**
 * Sends `rows` (COPY's binary format, as postgres-copy-rows.ts writes it) to
 * `statement`, a `COPY … FROM STDIN (FORMAT binary)`, on the transaction's
 * connection.
 */
export type CopyIn = (statement: string, rows: readonly Uint8Array[]) => Promise<void>;

/** A value of a PostgreSQL array parameter: numbers, bigints and booleans are written as they print, strings quoted. */
export type ArrayElement = string | number | bigint | boolean | null | undefined;

/** Characters an array literal's quoted element must escape. */
const ARRAY_ESCAPED = /["\\]/;

/**
 * The text of a PostgreSQL array literal (`{1,NULL,"pending"}`) of
 * `element(item)` for each item, for a `$n::type[]` parameter. Written in one
 * pass rather than by node-postgres's prepareValue, which escapes every
 * element with two regular-expression replacements after building an array
 * of them: for an import's runs (nine arrays of 10,000 elements per
 * statement) that was a fifth of the process's own time and much of its
 * garbage. Every string is quoted, so NULL, empty and space-padded strings
 * keep their meaning; null and undefined are SQL NULL.
 */
export function arrayLiteral<T>(items: readonly T[], element: (item: T) => ArrayElement): string {
  let text = '{';
  for (let i = 0; i < items.length; i++) {
    const value = element(items[i] as T);
    if (i > 0) text += ',';
    if (value === null || value === undefined) text += 'NULL';
    else if (typeof value !== 'string') text += String(value);
    else if (ARRAY_ESCAPED.test(value)) text += `"${value.replace(/["\\]/g, '\\$&')}"`;
    else text += `"${value}"`;
  }
  return `${text}}`;
}
