import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import type { CustomTypesConfig } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { toStorageError } from './postgres-errors.js';
import type { CopyIn, Sql, Transaction } from './postgres-sql.js';

/** How long a request may wait for a connection before it gets a 503. */
export const CONNECT_TIMEOUT_MS = 3000;
/** A statement that runs longer is cancelled by the server (and the request gets a 503). */
export const STATEMENT_TIMEOUT_MS = 10_000;
/** Client-side bound, beyond the statement timeout, for when the server stops answering altogether. */
const QUERY_TIMEOUT_MARGIN_MS = 2000;

/**
 * int8 arrives as text and becomes a bigint, never a JS number. Set per pool
 * rather than with pg.types.setTypeParser, which would change every pool in
 * the process.
 */
export const types: CustomTypesConfig = {
  getTypeParser: (oid, format) =>
    oid === pg.types.builtins.INT8 && format !== 'binary' ? (text: string) => BigInt(text) : pg.types.getTypeParser(oid, format),
};

export interface PostgresPool {
  /**
   * One statement, one round trip: its timeout is the session default that
   * migrate gives the role in this database (see applyStatementTimeout).
   */
  sql: Sql;
  /** A transaction that starts with SET LOCAL statement_timeout. */
  transaction: Transaction;
  /** Connections in use, idle and waited for, for the pool gauge. */
  connections(): { inUse: number; idle: number; waiting: number };
  end(): Promise<void>;
}

/**
 * A pool that keeps working behind a transaction-mode pooler (PgBouncer):
 * no startup parameters beyond what PgBouncer tracks (it refuses
 * statement_timeout there) and no session state (a session SET would stay
 * on the server connection for whichever client gets it next). The
 * statement timeout comes from the database, as the role's default there
 * (set by migrate), and every transaction restates it with SET LOCAL, which
 * ends with the transaction; BEGIN and the SET LOCAL travel in one
 * simple-protocol round trip, so a transaction costs what it did before.
 */
export function createPostgresPool(options: {
  url: string;
  poolSize: number;
  statementTimeoutMs?: number;
  /** Called after each COMMIT with the transaction's statement function. */
  afterCommit?: (tx: Sql) => void;
}): PostgresPool {
  const statementTimeoutMs = Math.trunc(options.statementTimeoutMs ?? STATEMENT_TIMEOUT_MS);
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    query_timeout: statementTimeoutMs + QUERY_TIMEOUT_MARGIN_MS,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    application_name: 'store-orders',
    types,
  });
  // An idle connection whose server goes away emits 'error' on the pool; with
  // no listener that would crash the process. The pool drops that connection
  // and the next query reports the outage to its caller.
  pool.on('error', () => undefined);
  const begin = `BEGIN; SET LOCAL statement_timeout = ${statementTimeoutMs}`;

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
    // COPY through pg-copy-streams on the transaction's own connection: it
    // works through a transaction-mode pooler, the transaction pinning the
    // server connection until its COMMIT.
    const copyIn: CopyIn = async (statement, rows) => {
      try {
        await pipeline(Readable.from(rows), client.query(copyFrom(statement)));
      } catch (error) {
        throw toStorageError(error);
      }
    };
    let broken = false;
    try {
      await tx(begin);
      const result = await work(tx, copyIn);
      await tx('COMMIT');
      options.afterCommit?.(tx);
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => (broken = true));
      throw error;
    } finally {
      // A connection that could not even roll back is dropped, not reused.
      client.release(broken);
    }
  };

  const sql: Sql = async (text, values) => {
    try {
      const result = await pool.query(text, values === undefined ? undefined : [...values]);
      return result.rows;
    } catch (error) {
      throw toStorageError(error);
    }
  };

  return {
    sql,
    transaction,
    connections: () => ({ inUse: pool.totalCount - pool.idleCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    end: () => pool.end(),
  };
}

/**
 * Makes `timeoutMs` the statement timeout of every new session of the
 * current role in the current database: the only way a timeout reaches a
 * single statement through a transaction-mode pooler without a round trip
 * of its own. Run by migrate as the last step of its transaction (under its
 * advisory lock, so concurrent migrators do not update the same setting at
 * once). The role's default reaches only sessions that start afterwards, so
 * the migrating session, which a pooler hands to other clients next, takes
 * the same value with a session SET that outlives the COMMIT: exactly the
 * state a fresh server connection gets, nothing a later client relies on.
 */
export async function applyStatementTimeout(client: pg.ClientBase, timeoutMs: number): Promise<void> {
  const ms = String(Math.trunc(timeoutMs));
  // Neither statement takes parameters: the database name is quoted by format(%I), the timeout is an integer.
  await client.query(`DO $$ BEGIN EXECUTE format('ALTER ROLE CURRENT_USER IN DATABASE %I SET statement_timeout = ${ms}', current_database()); END $$`);
  await client.query(`SET statement_timeout = ${ms}`);
}
