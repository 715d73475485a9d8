import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import type { DatabaseConfig } from '../../src/config/config.js';
import { openStorage } from '../../src/storage/open-storage.js';
import type { Storage } from '../../src/storage/storage.js';
import { createTestDatabase, type TestDatabase } from './postgres.js';

/** A backend the storage and HTTP suites run against. */
export interface TestBackend {
  /** The database kind, or how it is reached (`postgres-pgbouncer`). */
  name: string;
  /**
   * A fresh, empty database, removed when the test ends; migrated unless
   * `migrate: false`.
   */
  freshDatabase(t: TestContext, options?: { migrate?: boolean }): Promise<{ config: DatabaseConfig; storage: Storage }>;
}

export const sqliteBackend: TestBackend = {
  name: 'sqlite',
  async freshDatabase(t, { migrate = true } = {}) {
    const dir = mkdtempSync(path.join(tmpdir(), 'store-orders-test-'));
    const config: DatabaseConfig = { kind: 'sqlite', path: path.join(dir, 'store.db') };
    const storage = openStorage(config);
    t.after(async () => {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    });
    if (migrate) await storage.migrate();
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
      const database = await createTestDatabase();
      const config: DatabaseConfig = { kind: 'postgres', url: reach(database), poolSize: 5 };
      const storage = openStorage(config);
      t.after(async () => {
        await storage.close();
        await database.drop();
      });
      if (migrate) await storage.migrate();
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
 * Every backend the suites run on. When the launcher started a PgBouncer
 * (TEST_PGBOUNCER_URL), the PostgreSQL runs go through it in transaction
 * pooling mode, the way DEPLOYMENT.md recommends running in production, so
 * every HTTP suite proves it needs no session state. `postgresDirect` adds
 * PostgreSQL reached directly as well: the storage contract suite runs on
 * both, so what the pooler hides cannot hide a bug either.
 */
export function testBackends({ postgresDirect = false }: { postgresDirect?: boolean } = {}): TestBackend[] {
  const pgbouncerUrl = process.env.TEST_PGBOUNCER_URL;
  if (pgbouncerUrl === undefined || pgbouncerUrl === '') return [sqliteBackend, postgresBackend];
  const pooled = pgbouncerBackend(pgbouncerUrl);
  return postgresDirect ? [sqliteBackend, postgresBackend, pooled] : [sqliteBackend, pooled];
}
