import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteSynchronous } from '../../config/config.js';
import { planMigrations, readMigrations } from '../migrations.js';
import { DatabaseUnavailableError } from '../../errors/errors.js';
import type { MigrationReport, Storage } from '../storage.js';
import { createSqliteAccountsRepository } from './sqlite-accounts-repository.js';
import { createSqliteApiKeysRepository } from './sqlite-api-keys-repository.js';
import { createSqliteMessagesRepository } from './sqlite-messages-repository.js';
import { createSqliteIdempotencyRepository } from './sqlite-idempotency-repository.js';
import { createSqliteOrdersRepository } from './sqlite-orders-repository.js';
import { createSqliteSecretsRepository } from './sqlite-secrets-repository.js';
import { createSqlitePetsRepository } from './sqlite-pets-repository.js';
import { createSqliteEventsRepository } from './sqlite-events.js';
import { Database } from './sqlite-driver.js';
import { createSqliteSessionsRepository } from './sqlite-sessions-repository.js';
import { createSqliteTeamRepository } from './sqlite-team-repository.js';
import { createSqliteAttemptThrottleRepository } from './sqlite-attempt-throttle-repository.js';
import { createSqliteUsersRepository } from './sqlite-users-repository.js';
import { createSqliteSignUpsRepository } from './sqlite-sign-ups-repository.js';
import { createSqliteAuditRepository } from './sqlite-audit-repository.js';
import { createSqlitePasskeysRepository } from './sqlite-passkeys-repository.js';
import { createSqliteTwoStepRepository } from './sqlite-two-step-repository.js';
import { createSqliteWebhooksRepository } from './sqlite-webhooks-repository.js';
import { announceDeliveriesOf } from './sqlite-webhook-cursors.js';
import { createDeliveriesQueued } from '../../delivery/deliveries-queued.js';
import { createEndpointsDisabled } from '../../webhooks/notices/endpoints-disabled.js';
import { createSqliteWebhookNoticesRepository } from './sqlite-webhook-notices-repository.js';
import { announceMailOf, createSqliteMailRepository } from './sqlite-mail-repository.js';
import { createSqliteRequestLogsRepository } from './sqlite-request-logs-repository.js';
import { createSqliteUsageRepository } from './sqlite-usage-repository.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('../../../migrations/sqlite/', import.meta.url));
/*
 * better-sqlite3 waits for a lock synchronously, stalling the whole event
 * loop, so requests wait at most 1 s for another process's write and then get
 * a 503. Migrations, run once at start, may wait longer.
 */
const BUSY_TIMEOUT_MS = 1000;
const MIGRATION_BUSY_TIMEOUT_MS = 10_000;

/**
 * Opens (creating if needed) a SQLite database file in WAL mode, so that the
 * server and the CLI, or several server processes, can share it.
 * `synchronous=FULL` (the default) makes every acknowledged commit survive
 * power loss; NORMAL is the documented opt-in (DEPLOYMENT.md).
 */
export function openSqliteStorage(file: string, { synchronous = 'full' }: { synchronous?: SqliteSynchronous } = {}): Storage {
  mkdirSync(path.dirname(file), { recursive: true });
  const db = openConnection(file, synchronous, BUSY_TIMEOUT_MS);
  const deliveriesQueued = createDeliveriesQueued();
  announceDeliveriesOf(db, deliveriesQueued);
  const endpointsDisabled = createEndpointsDisabled();
  const mailQueued = createDeliveriesQueued();
  announceMailOf(db, mailQueued);

  return {
    kind: 'sqlite',
    onDeliveriesQueued: deliveriesQueued.subscribe,
    onEndpointDisabled: endpointsDisabled.subscribe,
    onMailQueued: mailQueued.subscribe,
    // SQLite cannot tell one process of another's commits.
    watchOtherProcesses: async () => ({ watching: false, how: 'SQLite cannot notify other processes' }),
    // One connection, no pool.
    connections: () => undefined,
    accounts: mapUnavailable(createSqliteAccountsRepository(db)),
    apiKeys: mapUnavailable(createSqliteApiKeysRepository(db)),
    // A bulk import is an operator's command: it may wait longer for the write lock.
    orders: mapUnavailable(createSqliteOrdersRepository(db, () => openConnection(file, synchronous, MIGRATION_BUSY_TIMEOUT_MS))),
    secrets: mapUnavailable(createSqliteSecretsRepository(db)),
    pets: mapUnavailable(createSqlitePetsRepository(db)),
    messages: mapUnavailable(createSqliteMessagesRepository(db)),
    idempotency: mapUnavailable(createSqliteIdempotencyRepository(db)),
    users: mapUnavailable(createSqliteUsersRepository(db)),
    signUps: mapUnavailable(createSqliteSignUpsRepository(db)),
    sessions: mapUnavailable(createSqliteSessionsRepository(db)),
    team: mapUnavailable(createSqliteTeamRepository(db)),
    attemptThrottle: mapUnavailable(createSqliteAttemptThrottleRepository(db)),
    audit: mapUnavailable(createSqliteAuditRepository(db)),
    passkeys: mapUnavailable(createSqlitePasskeysRepository(db)),
    twoStep: mapUnavailable(createSqliteTwoStepRepository(db)),
    events: mapUnavailable(createSqliteEventsRepository(db)),
    webhooks: mapUnavailable(createSqliteWebhooksRepository(db, endpointsDisabled.tell)),
    webhookNotices: mapUnavailable(createSqliteWebhookNoticesRepository(db)),
    mail: mapUnavailable(createSqliteMailRepository(db)),
    requestLogs: mapUnavailable(createSqliteRequestLogsRepository(db, synchronous)),
    usage: mapUnavailable(createSqliteUsageRepository(db)),
    migrate: async () => {
      db.pragma(`busy_timeout = ${MIGRATION_BUSY_TIMEOUT_MS}`);
      try {
        return migrateSqlite(db);
      } finally {
        db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      }
    },
    ping: async () => {
      // Reads the schema, so a missing or corrupt file is noticed, not only a live handle.
      db.prepare('SELECT count(*) FROM schema_migrations').get();
    },
    close: async () => {
      if (db.open) db.close();
    },
  };
}

/** The newest schema version this program's SQLite migrations define (what `migrate` brings a database to). */
export function sqliteSchemaVersion(): number {
  return Math.max(0, ...readMigrations(MIGRATIONS_DIR).map((migration) => migration.version));
}

function openConnection(file: string, synchronous: SqliteSynchronous, busyTimeoutMs: number): BetterSqlite3.Database {
  const db = new Database(file, { timeout: busyTimeoutMs });
  enterWal(db, MIGRATION_BUSY_TIMEOUT_MS);
  db.pragma(synchronous === 'normal' ? 'synchronous = NORMAL' : 'synchronous = FULL');
  db.pragma('foreign_keys = ON');
  // int64 columns must never pass through a JS number.
  db.defaultSafeIntegers(true);
  return db;
}

/**
 * Switches a database to WAL, once in its life. SQLite does that as a read
 * upgraded to a write, and an upgrade does not wait on the busy timeout: two
 * processes opening one new file at the same moment (two servers started
 * together) made the slower one fail at once with SQLITE_BUSY. The winner's
 * switch takes milliseconds, so the loser retries briefly until it finds the
 * file in WAL already, which needs no lock. A synchronous wait, as
 * better-sqlite3's own busy timeout is: this runs once, at opening.
 */
function enterWal(db: BetterSqlite3.Database, waitMs: number): void {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if (!(error instanceof Database.SqliteError && error.code === 'SQLITE_BUSY') || Date.now() >= deadline) throw error;
      Atomics.wait(PAUSE, 0, 0, 5);
    }
  }
}
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/** Lock contention and a closed handle are "try again", not internal faults. */
function toSqliteStorageError(error: unknown): unknown {
  const code = error instanceof Database.SqliteError ? error.code : undefined;
  const closed = error instanceof TypeError && /database connection is not open/.test(error.message);
  if (closed || code === 'SQLITE_BUSY' || code?.startsWith('SQLITE_BUSY_') || code === 'SQLITE_LOCKED') {
    // The cause is kept for operators (the CLI says why it cannot connect); clients only ever see the message.
    return new DatabaseUnavailableError('The database is busy or unavailable; retry the request shortly.', { cause: error });
  }
  return error;
}

/**
 * Wraps every method of a repository so that its failures pass through
 * toSqliteStorageError: the one place SQLite's "busy" becomes the API's 503.
 */
function mapUnavailable<T extends object>(repository: T): T {
  const wrapped: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(repository)) {
    if (typeof member !== 'function') {
      wrapped[name] = member;
      continue;
    }
    wrapped[name] = (...args: unknown[]) => {
      try {
        const result: unknown = member.apply(repository, args);
        return result instanceof Promise ? result.catch((error: unknown) => Promise.reject(toSqliteStorageError(error))) : result;
      } catch (error) {
        throw toSqliteStorageError(error);
      }
    };
  }
  return wrapped as T;
}

function migrateSqlite(db: BetterSqlite3.Database): MigrationReport {
  const migrations = readMigrations(MIGRATIONS_DIR);
  // BEGIN IMMEDIATE takes the write lock up front, so concurrent migrators
  // queue behind each other (busy timeout) instead of applying twice.
  const run = db.transaction((): MigrationReport => {
    db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version    INTEGER PRIMARY KEY,
      name       TEXT NOT NULL,
      applied_at TEXT NOT NULL
    ) STRICT`);
    const applied = db.prepare('SELECT version FROM schema_migrations').safeIntegers(false).pluck().all() as number[];
    const { pending, version } = planMigrations(migrations, applied);
    for (const migration of pending) {
      db.exec(migration.sql);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
        migration.version,
        migration.name,
        new Date().toISOString(),
      );
    }
    return { applied: pending.map((migration) => migration.name), version };
  });
  return run.immediate();
}
