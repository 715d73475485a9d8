import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import type { DatabaseConfig } from '../../src/config/config.js';
import { openStorage, type Storage } from '../../src/storage/storage.js';

/** A backend the storage and HTTP suites run against. */
export interface TestBackend {
  name: DatabaseConfig['kind'];
  /** A fresh, empty, migrated database, removed when the test ends. */
  freshDatabase(t: TestContext): Promise<{ config: DatabaseConfig; storage: Storage }>;
}

export const sqliteBackend: TestBackend = {
  name: 'sqlite',
  async freshDatabase(t) {
    const dir = mkdtempSync(path.join(tmpdir(), 'store-orders-test-'));
    const config: DatabaseConfig = { kind: 'sqlite', path: path.join(dir, 'store.db') };
    const storage = openStorage(config);
    t.after(async () => {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    });
    await storage.migrate();
    return { config, storage };
  },
};

/** Every backend the suites run on. */
export function testBackends(): TestBackend[] {
  return [sqliteBackend];
}
