import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import type { DatabaseConfig } from '../../src/config/config.js';
import { openStorage } from '../../src/storage/open-storage.js';
import type { Storage } from '../../src/storage/storage.js';
import { createTestDatabase } from './postgres.js';

/** A backend the storage and HTTP suites run against. */
export interface TestBackend {
  name: DatabaseConfig['kind'];
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

/** A fresh database on the test PostgreSQL server (see test/support/postgres.ts). */
export const postgresBackend: TestBackend = {
  name: 'postgres',
  async freshDatabase(t, { migrate = true } = {}) {
    const database = await createTestDatabase();
    const config: DatabaseConfig = { kind: 'postgres', url: database.url, poolSize: 5 };
    const storage = openStorage(config);
    t.after(async () => {
      await storage.close();
      await database.drop();
    });
    if (migrate) await storage.migrate();
    return { config, storage };
  },
};

/** Every backend the suites run on. */
export function testBackends(): TestBackend[] {
  return [sqliteBackend, postgresBackend];
}
