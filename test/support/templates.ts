/**
 * Migrate once, copy for every test. Running every migration for every test
 * was most of a storage test's time; a migrated template copied per test
 * gives the same fresh database in a fraction of it:
 * - PostgreSQL: one database migrated once, then `CREATE DATABASE … TEMPLATE`
 *   for each test (a file-level copy inside the server);
 * - SQLite: one migrated file, then a plain copy of it for each test (the
 *   file is closed first, so its WAL is checkpointed and removed, and the
 *   copy opens in WAL mode on its own: the mode is kept in the file).
 *
 * test/run.ts makes both once for the whole run and passes their names in
 * TEST_POSTGRES_TEMPLATE and TEST_SQLITE_TEMPLATE; a test file run on its own
 * makes its own once, on first use, and removes them when it exits.
 */
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openStorage } from '../../src/storage/open-storage.js';

/** `url` with its database name replaced. */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** Runs one statement as the server's administrative user (outside any database a test uses). */
export async function adminQuery(serverUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export interface Template {
  /** The database name (PostgreSQL) or file path (SQLite) tests copy. */
  name: string;
  remove(): Promise<void>;
}

/** A database on `serverUrl` with every migration applied, to be used as a template. */
export async function createPostgresTemplate(serverUrl: string): Promise<Template> {
  const name = `store_orders_template_${randomBytes(6).toString('hex')}`;
  await adminQuery(serverUrl, `CREATE DATABASE ${name}`);
  const storage = openStorage({ kind: 'postgres', url: withDatabase(serverUrl, name), poolSize: 1 });
  try {
    await storage.migrate();
  } finally {
    // Closed before any copy: CREATE DATABASE … TEMPLATE refuses a source with open connections.
    await storage.close();
  }
  return { name, remove: () => adminQuery(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/** A SQLite file with every migration applied, closed, to be copied. */
export async function createSqliteTemplate(): Promise<Template> {
  const dir = mkdtempSync(path.join(tmpdir(), 'store-orders-template-'));
  const file = path.join(dir, 'template.db');
  const storage = openStorage({ kind: 'sqlite', path: file });
  try {
    await storage.migrate();
  } finally {
    await storage.close();
  }
  return { name: file, remove: async () => rmSync(dir, { recursive: true, force: true }) };
}

let ownSqlite: Promise<Template> | undefined;

/** Copies the run's migrated SQLite file to `file`. */
export async function copySqliteTemplate(file: string): Promise<void> {
  let template = process.env.TEST_SQLITE_TEMPLATE;
  if (template === undefined || template === '') {
    ownSqlite ??= createSqliteTemplate().then((created) => {
      process.once('exit', () => void created.remove());
      return created;
    });
    template = (await ownSqlite).name;
  }
  copyFileSync(template, file);
}

let ownPostgres: Promise<Template> | undefined;

/** The name of the run's migrated PostgreSQL template on `serverUrl`. */
export async function postgresTemplate(serverUrl: string): Promise<string> {
  const template = process.env.TEST_POSTGRES_TEMPLATE;
  if (template !== undefined && template !== '') return template;
  ownPostgres ??= createPostgresTemplate(serverUrl).then((created) => {
    process.once('beforeExit', () => void created.remove().catch(() => undefined));
    return created;
  });
  return (await ownPostgres).name;
}
