/** Raw database access for audit tests that need a broken or old database. */
import pg from 'pg';
import { Database } from '../../src/storage/sqlite/sqlite-driver.js';
import type { DatabaseConfig } from '../../src/config/config.js';

/** Runs `sql` on the test database through a connection of its own (not the app's). */
export async function runSql(database: DatabaseConfig, sql: string): Promise<void> {
  if (database.kind === 'sqlite') {
    const db = new Database(database.path);
    try {
      db.exec(sql);
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Makes every audit write fail from now on, as a database fault would. */
export function dropAuditTable(database: DatabaseConfig): Promise<void> {
  return runSql(database, 'DROP TABLE audit_events');
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
