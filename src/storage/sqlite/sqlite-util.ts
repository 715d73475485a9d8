import Database from 'better-sqlite3';

/** The SQLite extended result code of a constraint failure, if `error` is one. */
export function sqliteConstraint(error: unknown): string | undefined {
  return error instanceof Database.SqliteError && error.code.startsWith('SQLITE_CONSTRAINT') ? error.code : undefined;
}

export type Prepare = (sql: string) => Database.Statement;

/** Prepares each distinct SQL text once per connection and reuses it. */
export function statementCache(db: Database.Database): Prepare {
  const cache = new Map<string, Database.Statement>();
  return (sql) => {
    let statement = cache.get(sql);
    if (statement === undefined) {
      statement = db.prepare(sql);
      cache.set(sql, statement);
    }
    return statement;
  };
}
