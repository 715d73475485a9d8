import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import type { DatabaseConfig } from '../../src/config/config.js';
import { openStorage } from '../../src/storage/open-storage.js';
import type { Storage } from '../../src/storage/storage.js';
import { createTestDatabase, type TestDatabase } from './postgres.js';
import { copySqliteTemplate } from './templates.js';

/** A backend the storage and HTTP suites run against. */
export interface TestBackend {
  /** The database kind, or how it is reached (`postgres-pgbouncer`). */
  name: string;
  /**
   * A fresh database, removed when the test ends: a copy of the run's
   * migrated template (test/support/templates.ts), or empty with
   * `migrate: false`.
   */
  freshDatabase(t: TestContext, options?: { migrate?: boolean }): Promise<{ config: DatabaseConfig; storage: Storage }>;
}

export const sqliteBackend: TestBackend = {
  name: 'sqlite',
  async freshDatabase(t, { migrate = true } = {}) {
    const dir = mkdtempSync(path.join(tmpdir(), 'store-orders-test-'));
    const config: DatabaseConfig = { kind: 'sqlite', path: path.join(dir, 'store.db') };
    if (migrate) await copySqliteTemplate(config.path);
    const storage = openStorage(config);
    t.after(async () => {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    });
    return { config, storage };
  },
};

/**
 * A fresh database on the test PostgreSQL server (see test/support/postgres.ts),
 * reached at the URL `reach` gives.
 */
function postgresBackendVia(name: string, reach: (database: TestDatabase) => string): TestBackend {
  return {
    name,
    async freshDatabase(t, { migrate = true } = {}) {
      const database = await createTestDatabase({ migrated: migrate });
      const config: DatabaseConfig = { kind: 'postgres', url: reach(database), poolSize: 5 };
      const storage = openStorage(config);
      t.after(async () => {
        await storage.close();
        database.dropLater();
      });
      return { config, storage };
    },
  };
}

export const postgresBackend = postgresBackendVia('postgres', (database) => database.url);

/**
 * The same, but the storage under test connects through PgBouncer in
 * transaction pooling mode (TEST_PGBOUNCER_URL, set by test/run.ts). The
 * database is created directly on PostgreSQL; PgBouncer's wildcard entry
 * passes any database name through.
 */
function pgbouncerBackend(pgbouncerUrl: string): TestBackend {
  return postgresBackendVia('postgres-pgbouncer', (database) => {
    const url = new URL(database.url);
    const pooler = new URL(pgbouncerUrl);
    url.host = pooler.host;
    return url.toString();
  });
}

/**
 * The backends of the suites whose behaviour lives in storage: the storage
 * contract suite (test/contract/storage/) and the few engines whose rules
 * are enforced by the database (the group commit, claims of the delivery
 * engines, idempotency races, migrations, retention). When the launcher
 * started a PgBouncer (TEST_PGBOUNCER_URL), the PostgreSQL runs go through
 * it in transaction pooling mode, the way DEPLOYMENT.md recommends running
 * in production, so they prove no session state is needed. `postgresDirect`
 * adds PostgreSQL reached directly as well: the contract suite runs on both,
 * so what the pooler hides cannot hide a bug either.
 */
export function storageBackends({ postgresDirect = false }: { postgresDirect?: boolean } = {}): TestBackend[] {
  const pgbouncerUrl = process.env.TEST_PGBOUNCER_URL;
  if (pgbouncerUrl === undefined || pgbouncerUrl === '') return [sqliteBackend, postgresBackend];
  const pooled = pgbouncerBackend(pgbouncerUrl);
  return postgresDirect ? [sqliteBackend, postgresBackend, pooled] : [sqliteBackend, pooled];
}

/**
 * The one backend of the suites above storage (HTTP, hosts, services that
 * only call repositories): SQLite, the embedded default. What those layers
 * do is the same whatever the database, and the storage contract suite
 * already holds both adapters to one behaviour, so running every HTTP test
 * again on PostgreSQL tested the same code twice. TEST_HTTP_BACKEND=postgres
 * runs them on PostgreSQL instead (through PgBouncer when the launcher
 * started one), to look for a difference the contract suite missed.
 */
export function httpBackends(): TestBackend[] {
  return chosenBackend('TEST_HTTP_BACKEND', process.env.TEST_HTTP_BACKEND);
}

/**
 * The backend of the portal's browser tests: TEST_BROWSER_BACKEND when set,
 * else the HTTP tests' (httpBackends). CI runs them on SQLite under Node 20
 * and on PostgreSQL through PgBouncer under Node 24 (.ci/run), so every run
 * has the portal in a real browser on both databases.
 */
export function browserBackends(): TestBackend[] {
  const chosen = process.env.TEST_BROWSER_BACKEND;
  return chosen === undefined || chosen === '' ? httpBackends() : chosenBackend('TEST_BROWSER_BACKEND', chosen);
}

function chosenBackend(variable: string, chosen: string | undefined): TestBackend[] {
  if (chosen === undefined || chosen === '' || chosen === 'sqlite') return [sqliteBackend];
  if (chosen !== 'postgres') throw new Error(`${variable} must be sqlite or postgres, got ${chosen}`);
  const pgbouncerUrl = process.env.TEST_PGBOUNCER_URL;
  return [pgbouncerUrl === undefined || pgbouncerUrl === '' ? postgresBackend : pgbouncerBackend(pgbouncerUrl)];
}
