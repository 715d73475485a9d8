import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import type { Services } from '../../src/services.js';
import type { DatabaseConfig } from '../../src/config/config.js';
import { openStorage } from '../../src/storage/open-storage.js';
import type { Storage } from '../../src/storage/storage.js';
import { createTestDatabase } from './postgres.js';
import { testServices } from './container.js';

/** A database that spawned processes share, by its DATABASE_URL. */
export interface SharedDatabase {
  name: DatabaseConfig['kind'];
  /** DATABASE_URL for spawned processes. */
  url: string;
  /** A handle from the test process itself, to set up and inspect state. */
  open(): { storage: Storage; services: Services };
}

export interface SharedDatabaseFactory {
  name: DatabaseConfig['kind'];
  create(t: Pick<TestContext, 'after'>): Promise<SharedDatabase>;
}

/**
 * Handles opened by the test; `closeAll` closes them. (t.after hooks run in
 * the order they were registered, so the database's own clean-up closes
 * them itself rather than relying on hook order.)
 */
function handles(config: DatabaseConfig) {
  const opened: Storage[] = [];
  return {
    open: () => {
      const storage = openStorage(config);
      opened.push(storage);
      return { storage, services: testServices(storage) };
    },
    closeAll: () => Promise.all(opened.map((storage) => storage.close())),
  };
}

/** An empty SQLite file in a temporary directory. */
const sqliteFile: SharedDatabaseFactory = {
  name: 'sqlite',
  async create(t) {
    const dir = mkdtempSync(path.join(tmpdir(), 'store-orders-e2e-'));
    const file = path.join(dir, 'store.db');
    const { open, closeAll } = handles({ kind: 'sqlite', path: file });
    t.after(async () => {
      await closeAll();
      rmSync(dir, { recursive: true, force: true });
    });
    return { name: 'sqlite', url: `sqlite:${file}`, open };
  },
};

/** An empty database on the test PostgreSQL server. */
const postgresDatabase: SharedDatabaseFactory = {
  name: 'postgres',
  async create(t) {
    const database = await createTestDatabase();
    const { open, closeAll } = handles({ kind: 'postgres', url: database.url, poolSize: 4 });
    t.after(async () => {
      await closeAll();
      database.dropLater();
    });
    return { name: 'postgres', url: database.url, open };
  },
};

export const sharedDatabases: readonly SharedDatabaseFactory[] = [sqliteFile, postgresDatabase];
