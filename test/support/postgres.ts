import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { startEmbeddedPostgres, type EmbeddedServer } from './embedded-postgres.js';

let ownServer: Promise<EmbeddedServer> | undefined;

/**
 * The PostgreSQL server tests create their databases on: TEST_DATABASE_URL
 * (set by test/run.ts, or by hand to use an existing server whose user may
 * CREATE DATABASE), otherwise one embedded server for this process, so a
 * single test file also runs on its own.
 */
export async function testServerUrl(): Promise<string> {
  const url = process.env.TEST_DATABASE_URL;
  if (url !== undefined && url !== '') return url;
  ownServer ??= startEmbeddedPostgres().then((server) => {
    process.once('beforeExit', () => void server.destroy());
    return server;
  });
  return (await ownServer).url;
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

async function admin<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export interface TestDatabase {
  url: string;
  /** Drops the database, closing any connection still open to it. */
  drop(): Promise<void>;
}

/** Creates an empty database on the test server; the caller drops it (usually in t.after). */
export async function createTestDatabase(): Promise<TestDatabase> {
  const serverUrl = await testServerUrl();
  const name = `test_${randomBytes(8).toString('hex')}`;
  await admin(serverUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  return {
    url: withDatabase(serverUrl, name),
    drop: async () => {
      // FORCE: a server process the test killed may have left connections behind.
      await admin(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}
