import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { CustomTypesConfig } from 'pg';
import type { PostgresDatabaseConfig } from '../../config/config.js';
import { readMigrations } from '../migration-files.js';
import type { MigrationReport, Storage } from '../storage.js';
import { createPostgresAccountsRepository } from './postgres-accounts-repository.js';
import { createPostgresApiKeysRepository } from './postgres-api-keys-repository.js';
import { toStorageError } from './postgres-errors.js';
import { createPostgresMessagesRepository } from './postgres-messages-repository.js';
import { createPostgresOrdersRepository } from './postgres-orders-repository.js';
import { createPostgresSecretsRepository } from './postgres-secrets-repository.js';
import { createPostgresPetsRepository } from './postgres-pets-repository.js';
import type { Sql, Transaction } from './postgres-sql.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('../../../migrations/postgres/', import.meta.url));

/** How long a request may wait for a connection before it gets a 503. */
const CONNECT_TIMEOUT_MS = 3000;
/** A statement that runs longer is cancelled by the server (and the request gets a 503). */
const STATEMENT_TIMEOUT_MS = 10_000;
/** Client-side bound for when the server stops answering altogether. */
const QUERY_TIMEOUT_MS = STATEMENT_TIMEOUT_MS + 2000;
/**
 * Serialises migrators across processes. An arbitrary constant: it only has
 * to differ from advisory lock keys other software uses in this database.
 */
const MIGRATION_LOCK_KEY = '126985637311075';

/**
 * int8 arrives as text and becomes a bigint, never a JS number. Set per pool
 * rather than with pg.types.setTypeParser, which would change every pool in
 * the process.
 */
const types: CustomTypesConfig = {
  getTypeParser: (oid, format) =>
    oid === pg.types.builtins.INT8 && format !== 'binary' ? (text: string) => BigInt(text) : pg.types.getTypeParser(oid, format),
};

/**
 * Opens a pool on a PostgreSQL database. No connection is made until the
 * first query, so a server can start while the database is still coming up
 * (migrate() then fails with a 503-mapped error and the process exits).
 */
export function openPostgresStorage(config: Pick<PostgresDatabaseConfig, 'url' | 'poolSize'>): Storage {
  const pool = new pg.Pool({
    connectionString: config.url,
    max: config.poolSize,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    statement_timeout: STATEMENT_TIMEOUT_MS,
    query_timeout: QUERY_TIMEOUT_MS,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    application_name: 'store-orders',
    types,
  });
  // An idle connection whose server goes away emits 'error' on the pool; with
  // no listener that would crash the process. The pool drops that connection
  // and the next query reports the outage to its caller.
  pool.on('error', () => undefined);

  const sql: Sql = async (text, values) => {
    try {
      const result = await pool.query(text, values === undefined ? undefined : [...values]);
      return result.rows;
    } catch (error) {
      throw toStorageError(error);
    }
  };

  const transaction: Transaction = async (work) => {
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      throw toStorageError(error);
    }
    const tx: Sql = async (text, values) => {
      try {
        const result = await client.query(text, values === undefined ? undefined : [...values]);
        return result.rows;
      } catch (error) {
        throw toStorageError(error);
      }
    };
    let broken = false;
    try {
      await tx('BEGIN');
      const result = await work(tx);
      await tx('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => (broken = true));
      throw error;
    } finally {
      // A connection that could not even roll back is dropped, not reused.
      client.release(broken);
    }
  };

  let closed = false;
  return {
    kind: 'postgres',
    connections: () => ({ inUse: pool.totalCount - pool.idleCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    accounts: createPostgresAccountsRepository(sql),
    apiKeys: createPostgresApiKeysRepository(sql),
    orders: createPostgresOrdersRepository(sql, transaction),
    secrets: createPostgresSecretsRepository(sql),
    pets: createPostgresPetsRepository(sql),
    messages: createPostgresMessagesRepository(sql),
    migrate: async () => {
      // Its own connection, without the request timeouts: it may wait for
      // another process's migrations and a migration may run long.
      const client = new pg.Client({
        connectionString: config.url,
        connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
        application_name: 'store-orders migrate',
        types,
      });
      client.on('error', () => undefined);
      try {
        await client.connect();
        return await migratePostgres(client);
      } catch (error) {
        throw toStorageError(error);
      } finally {
        await client.end().catch(() => undefined);
      }
    },
    ping: async () => {
      await sql('SELECT 1');
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}

/**
 * Applies pending migrations in one transaction under a transaction-scoped
 * advisory lock: of several processes starting at once, one applies them and
 * the others wait for its commit, then find nothing left to do.
 */
async function migratePostgres(client: pg.Client): Promise<MigrationReport> {
  const migrations = readMigrations(MIGRATIONS_DIR);
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version    integer     PRIMARY KEY,
      name       text        NOT NULL,
      applied_at timestamptz NOT NULL
    )`);
    const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations');
    const applied = new Set(rows.map((row) => row.version));
    const known = migrations.map((m) => m.version);
    if (Math.max(0, ...applied) > Math.max(0, ...known)) {
      throw new Error(
        `The database schema (version ${Math.max(...applied)}) is newer than this program knows (${Math.max(0, ...known)}); upgrade the program.`,
      );
    }
    const newlyApplied: string[] = [];
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      await client.query(migration.sql);
      await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
        migration.version,
        migration.name,
        new Date().toISOString(),
      ]);
      newlyApplied.push(migration.name);
    }
    await client.query('COMMIT');
    return { applied: newlyApplied, version: Math.max(0, ...applied, ...known) };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
