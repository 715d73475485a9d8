import type BetterSqlite3 from 'better-sqlite3';
import { Database } from './sqlite-driver.js';

/** The SQLite extended result code of a constraint failure, if `error` is one. */
export function sqliteConstraint(error: unknown): string | undefined {
  return error instanceof Database.SqliteError && error.code.startsWith('SQLITE_CONSTRAINT') ? error.code : undefined;
}

export type Prepare = (sql: string) => BetterSqlite3.Statement;

/** Prepares each distinct SQL text once per connection and reuses it. */
export function statementCache(db: BetterSqlite3.Database): Prepare {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return (sql) => {
    let statement = cache.get(sql);
    if (statement === undefined) {
      statement = db.prepare(sql);
      cache.set(sql, statement);
    }
    return statement;
  };
}
