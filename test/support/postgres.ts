import { randomBytes } from 'node:crypto';
import { startEmbeddedPostgres, type EmbeddedServer } from './embedded-postgres.js';
import { adminQuery, postgresTemplate, withDatabase } from './templates.js';

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

export interface TestDatabase {
  url: string;
  /** Drops the database, closing any connection still open to it. */
  drop(): Promise<void>;
}

/**
 * Creates a database on the test server, empty or (`migrated`) a copy of
 * the run's migrated template (test/support/templates.ts); the caller drops
 * it (usually in t.after).
 */
export async function createTestDatabase({ migrated = false }: { migrated?: boolean } = {}): Promise<TestDatabase> {
  const serverUrl = await testServerUrl();
  const name = `test_${randomBytes(8).toString('hex')}`;
  const template = migrated ? ` TEMPLATE ${await postgresTemplate(serverUrl)}` : '';
  await adminQuery(serverUrl, `CREATE DATABASE ${name}${template}`);
  return {
    url: withDatabase(serverUrl, name),
    drop: async () => {
      // FORCE: a server process the test killed may have left connections behind.
      await adminQuery(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}
