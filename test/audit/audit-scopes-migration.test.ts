import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { API_KEY_SCOPES } from '../../src/api-keys/api-key-scopes.js';
import { testServices } from '../support/container.js';
import { storageBackends } from '../support/storage.js';
import { readSql, runSql } from '../support/raw-sql.js';

const OLD_ALL = 'orders:read orders:write pets:read messages:write';

for (const backend of storageBackends()) {
  describe(`keys holding every scope gain audit:read (${backend.name})`, () => {
    test('when migration 0006 meets keys stored with every scope of the release before, then they hold audit:read too, and narrower keys do not', async (t) => {
      const { storage, config } = await backend.freshDatabase(t);
      const services = testServices(storage);
      const account = await services.accounts.createAccount({ name: 'Upgraded Pets' });
      const all = await services.apiKeys.createKey({ accountId: account.id });
      const narrow = await services.apiKeys.createKey({ accountId: account.id, scopes: ['orders:read', 'pets:read'] });
      // The database as the release before left it: no audit table, every scope spelled out.
      await runSql(
        config,
        `DROP TABLE audit_events; DELETE FROM schema_migrations WHERE version = 6;
         UPDATE api_keys SET scopes = '${OLD_ALL}' WHERE id = ${all.apiKey.id}`,
      );

      assert.deepEqual((await storage.migrate()).applied, ['0006-audit']);

      assert.deepEqual((await storage.apiKeys.findById(all.apiKey.id))?.scopes, [...API_KEY_SCOPES]);
      assert.ok(API_KEY_SCOPES.includes('audit:read'));
      assert.deepEqual((await storage.apiKeys.findById(narrow.apiKey.id))?.scopes, ['orders:read', 'pets:read']);
      const principal = await services.apiKeys.authenticate(all.secret);
      assert.ok(principal.ok && principal.principal.scopes.includes('audit:read'));
    });

    test('when a key is created without scopes, then it is stored with the all-scopes marker and the names, so that later scopes are held too', async (t) => {
      const { storage, config } = await backend.freshDatabase(t);
      const services = testServices(storage);
      const account = await services.accounts.createAccount({ name: 'New Pets' });
      const { apiKey } = await services.apiKeys.createKey({ accountId: account.id });
      const narrow = await services.apiKeys.createKey({ accountId: account.id, scopes: ['audit:read', 'orders:read'] });
      assert.deepEqual(await readSql(config, `SELECT scopes FROM api_keys ORDER BY id`), [
        { scopes: `* ${API_KEY_SCOPES.join(' ')}` },
        { scopes: 'orders:read audit:read' },
      ]);
      assert.deepEqual(narrow.apiKey.scopes, ['orders:read', 'audit:read']);
      // A scope a later release adds reads as held: the marker, not the list, decides.
      await runSql(config, `UPDATE api_keys SET scopes = '* orders:read' WHERE id = ${apiKey.id}`);
      assert.deepEqual((await storage.apiKeys.findById(apiKey.id))?.scopes, [...API_KEY_SCOPES]);
      // Rolled, it stays an every-scope key.
      const rolled = await services.apiKeys.rollKey({ keyId: apiKey.id, graceMs: 0 });
      assert.deepEqual(rolled.apiKey.scopes, [...API_KEY_SCOPES]);
    });
  });
}
