import pg from 'pg';
import { sqlState } from './postgres-errors.js';

const INVALID_CATALOG_NAME = '3D000';
const INSUFFICIENT_PRIVILEGE = '42501';
const DUPLICATE_DATABASE = '42P04';
const CONNECT_TIMEOUT_MS = 3000;

/** What ensurePostgresDatabase did. */
export type EnsureDatabaseOutcome =
  | { readonly outcome: 'exists'; readonly database: string }
  | { readonly outcome: 'created'; readonly database: string }
  /** The database is missing and the role may not create it; `message` says what to do. */
  | { readonly outcome: 'refused'; readonly database: string; readonly message: string };

async function withClient<T>(connectionString: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, application_name: 'store-orders migrate' });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Makes sure the database a PostgreSQL URL names exists, creating it when
 * it does not and the role may: `CREATE DATABASE` run from the server's
 * `postgres` maintenance database, the name quoted as an identifier (it
 * comes from the URL, so it may hold any character). Other connection
 * failures (a wrong password, a server that is down) are thrown as they are.
 */
export async function ensurePostgresDatabase(url: string): Promise<EnsureDatabaseOutcome> {
  const { database, user } = new pg.Client({ connectionString: url });
  const name = database ?? user ?? 'postgres';
  try {
    await withClient(url, async () => undefined);
    return { outcome: 'exists', database: name };
  } catch (error) {
    if (sqlState(error) !== INVALID_CATALOG_NAME) throw error;
  }
  const maintenance = new URL(url);
  maintenance.pathname = '/postgres';
  try {
    await withClient(maintenance.toString(), (client) => client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`));
    return { outcome: 'created', database: name };
  } catch (error) {
    const state = sqlState(error);
    // Another migrate created it between our two connections: the goal is met.
    if (state === DUPLICATE_DATABASE) return { outcome: 'exists', database: name };
    if (state === INSUFFICIENT_PRIVILEGE || state?.startsWith('28') === true || state === INVALID_CATALOG_NAME) {
      const role = user ?? 'this role';
      return {
        outcome: 'refused',
        database: name,
        message:
          `database "${name}" does not exist and role "${role}" may not create it. ` +
          `Ask an administrator to run: CREATE DATABASE ${pg.escapeIdentifier(name)} OWNER ${pg.escapeIdentifier(role)}; ` +
          '(or to give the role CREATEDB), then run migrate again.',
      };
    }
    throw error;
  }
}
