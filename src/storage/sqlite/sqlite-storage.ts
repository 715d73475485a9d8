import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import type { SqliteSynchronous } from '../../config/config.js';
import { readMigrations } from '../migration-files.js';
import type { MigrationReport, Storage } from '../storage.js';
import { createSqliteAccountsRepository } from './sqlite-accounts-repository.js';
import { createSqliteApiKeysRepository } from './sqlite-api-keys-repository.js';
import { createSqliteOrdersRepository } from './sqlite-orders-repository.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('../../../migrations/sqlite/', import.meta.url));
const BUSY_TIMEOUT_MS = 5000;

/**
 * Opens (creating if needed) a SQLite database file in WAL mode, so that the
 * server and the CLI, or several server processes, can share it.
 * `synchronous=FULL` (the default) makes every acknowledged commit survive
 * power loss; NORMAL is the documented opt-in (DEPLOYMENT.md).
 */
export function openSqliteStorage(file: string, { synchronous = 'full' }: { synchronous?: SqliteSynchronous } = {}): Storage {
  mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file, { timeout: BUSY_TIMEOUT_MS });
  db.pragma('journal_mode = WAL');
  db.pragma(synchronous === 'normal' ? 'synchronous = NORMAL' : 'synchronous = FULL');
  db.pragma('foreign_keys = ON');
  // int64 columns must never pass through a JS number.
  db.defaultSafeIntegers(true);

  return {
    kind: 'sqlite',
    accounts: createSqliteAccountsRepository(db),
    apiKeys: createSqliteApiKeysRepository(db),
    orders: createSqliteOrdersRepository(db),
    migrate: async () => migrateSqlite(db),
    ping: async () => {
      db.prepare('SELECT 1').get();
    },
    close: async () => {
      if (db.open) db.close();
    },
  };
}

function migrateSqlite(db: Database.Database): MigrationReport {
  const migrations = readMigrations(MIGRATIONS_DIR);
  // BEGIN IMMEDIATE takes the write lock up front, so concurrent migrators
  // queue behind each other (busy timeout) instead of applying twice.
  const run = db.transaction((): MigrationReport => {
    db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version    INTEGER PRIMARY KEY,
      name       TEXT NOT NULL,
      applied_at TEXT NOT NULL
    ) STRICT`);
    const applied = new Set(
      db.prepare('SELECT version FROM schema_migrations').safeIntegers(false).pluck().all() as number[],
    );
    const newlyApplied: string[] = [];
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      db.exec(migration.sql);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
        migration.version,
        migration.name,
        new Date().toISOString(),
      );
      newlyApplied.push(migration.name);
    }
    const known = migrations.map((m) => m.version);
    const newest = Math.max(0, ...applied, ...known);
    if (Math.max(0, ...applied) > Math.max(0, ...known)) {
      throw new Error(`The database schema (version ${Math.max(...applied)}) is newer than this program knows (${Math.max(0, ...known)}); upgrade the program.`);
    }
    return { applied: newlyApplied, version: newest };
  });
  return run.immediate();
}
