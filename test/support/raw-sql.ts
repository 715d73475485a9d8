/** Raw database access for tests that need a broken, old or inspected database, outside the storage under test. */
import pg from 'pg';
import type { DatabaseConfig } from '../../src/config/config.js';
import { Database } from '../../src/storage/sqlite/sqlite-driver.js';

/** Runs `statements` in turn on the test database through a connection of its own (not the app's). */
export async function runSql(database: DatabaseConfig, statements: string | readonly string[]): Promise<void> {
  const list = typeof statements === 'string' ? [statements] : statements;
  if (database.kind === 'sqlite') {
    const db = new Database(database.path);
    try {
      for (const statement of list) db.exec(statement);
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    for (const statement of list) await client.query(statement);
  } finally {
    await client.end();
  }
}

/** The rows of one query on the test database, through a connection of its own. */
export async function readSql(database: DatabaseConfig, sql: string): Promise<Record<string, unknown>[]> {
  if (database.kind === 'sqlite') {
    const db = new Database(database.path, { readonly: true });
    try {
      return db.prepare(sql).all() as Record<string, unknown>[];
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    return (await client.query<Record<string, unknown>>(sql)).rows;
  } finally {
    await client.end();
  }
}
