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
  /**
   * Drops the database (closing any connection still open to it) once the
   * test's other after-hooks have run: at the next createTestDatabase of
   * this process, or when the process is about to exit. node:test runs a test's after-hooks in the order they were added,
   * so a database made first would otherwise be dropped while engines and
   * connections the test started later still used it (a delivery engine
   * reaching a dropped database through PgBouncer kept its test waiting on
   * PgBouncer's login retries for about 12 s).
   */
  dropLater(): void;
}

/** Databases whose tests have ended, dropped when the next is made. */
const ended: (() => Promise<void>)[] = [];
/** Drops under way. The next test need not wait for them: a drop through PgBouncer waits for its server connections to end (about 90 ms more than directly). */
const dropping = new Set<Promise<void>>();
let dropsAtExit = false;

/** Starts the ended databases' drops; awaited only before the process exits. */
function dropEnded(): Promise<unknown> {
  for (const drop of ended.splice(0)) {
    const dropped: Promise<void> = drop()
      .catch(() => undefined)
      .finally(() => dropping.delete(dropped));
    dropping.add(dropped);
  }
  return Promise.all(dropping);
}

/**
 * Creates a database on the test server, empty or (`migrated`) a copy of
 * the run's migrated template (test/support/templates.ts); the caller calls
 * dropLater (usually in t.after).
 */
export async function createTestDatabase({ migrated = false }: { migrated?: boolean } = {}): Promise<TestDatabase> {
  const serverUrl = await testServerUrl();
  void dropEnded();
  const name = `test_${randomBytes(8).toString('hex')}`;
  const template = migrated ? ` TEMPLATE ${await postgresTemplate(serverUrl)}` : '';
  await adminQuery(serverUrl, `CREATE DATABASE ${name}${template}`);
  // FORCE: a server process the test killed may have left connections behind.
  const drop = () => adminQuery(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  return {
    url: withDatabase(serverUrl, name),
    dropLater: () => {
      if (!dropsAtExit) process.on('beforeExit', () => void dropEnded().catch(() => undefined));
      dropsAtExit = true;
      ended.push(drop);
    },
  };
}
