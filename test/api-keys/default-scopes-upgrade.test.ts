/**
 * A key created without --scopes holds every scope. Such keys are stored
 * with the full list of their time, so an upgrade that adds a scope must add
 * it to them: a database at schema 0005 with such a key, migrated, gives the
 * key events:read; a key created with chosen scopes does not gain it.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import type { DatabaseConfig } from '../../src/config/config.js';
import { ROOT } from '../support/process.js';
import { runSql } from '../support/raw-sql.js';
import { storageBackends } from '../support/storage.js';

const AT = '2026-11-22T00:00:00.000Z';

/** Brings an empty database to schema 0005, as a release before events left it, and adds two keys. */
async function atSchema5(config: DatabaseConfig): Promise<void> {
  const dir = path.join(ROOT, 'migrations', config.kind);
  const files = readdirSync(dir).filter((file) => /^000[1-5]-.*\.sql$/.test(file)).sort();
  const statements = [
    'CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at text NOT NULL)',
    ...files.flatMap((file) => [
      readFileSync(path.join(dir, file), 'utf8'),
      `INSERT INTO schema_migrations (version, name, applied_at) VALUES (${Number(file.slice(0, 4))}, '${file.slice(0, -4)}', '${AT}')`,
    ]),
    `INSERT INTO accounts (name, created_at) VALUES ('Main Street Pets', '${AT}')`,
    // What keys create stored without --scopes in that release: the full list of its four scopes.
    `INSERT INTO api_keys (account_id, name, hash, start, created_at, scopes) VALUES (1, 'all', '${'a'.repeat(64)}', 'sk_a', '${AT}', 'orders:read orders:write pets:read messages:write')`,
    `INSERT INTO api_keys (account_id, name, hash, start, created_at, scopes) VALUES (1, 'chosen', '${'b'.repeat(64)}', 'sk_b', '${AT}', 'orders:read pets:read')`,
  ];
  await runSql(config, statements);
}

for (const backend of storageBackends()) {
  describe(`default scopes on upgrade: ${backend.name}`, () => {
    test('when a database with a key created without --scopes is migrated, then the key holds events:read; a key with chosen scopes does not', async (t) => {
      const { config, storage } = await backend.freshDatabase(t, { migrate: false });
      await atSchema5(config);
      const report = await storage.migrate();
      assert.ok(report.applied.includes('0008-events'), `applied ${report.applied.join(', ')}`);
      const keys = await storage.apiKeys.listByAccount(1);
      const scopes = Object.fromEntries(keys.map((key) => [key.name, key.scopes]));
      assert.ok(scopes.all?.includes('events:read'), `all: ${String(scopes.all)}`);
      assert.deepEqual(scopes.chosen, ['orders:read', 'pets:read']);
    });
  });
}
