import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import { cacheApiKeyLookups } from '../../src/api-keys/api-key-cache.js';
import { generateApiKey, hashApiKey } from '../../src/api-keys/api-key-format.js';
import { API_KEY_SCOPES } from '../../src/api-keys/api-key-scopes.js';
import type { Clock } from '../../src/shared/clock.js';
import { openStorage } from '../../src/storage/open-storage.js';
import { httpBackends, type TestBackend } from '../support/storage.js';
import { testServices } from '../support/container.js';

/** A clock the test moves by hand. */
function manualClock(): Clock & { advance(ms: number): void } {
  let now = Date.parse('2026-11-22T00:00:00.000Z');
  return { now: () => new Date(now), advance: (ms) => (now += ms) };
}

/** One database, seen by "this process" (cached, manual clock) and by "another process" (its own connection). */
async function twoProcesses(t: TestContext, backend: TestBackend) {
  const { config, storage } = await backend.freshDatabase(t);
  const other = openStorage(config);
  t.after(() => other.close());
  const clock = manualClock();
  const here = testServices(storage, { clock: clock });
  const there = testServices(other);
  const account = await there.accounts.createAccount({ name: 'Keys' });
  return { storage, other, clock, here, there, account };
}

for (const backend of httpBackends()) {
  describe(`API key cache (${backend.name})`, () => {
    test('when another process revokes a key, then this process refuses it once 1 s has passed', async (t) => {
      const { clock, here, there, account } = await twoProcesses(t, backend);
      const { apiKey, secret } = await there.apiKeys.createKey({ accountId: account.id });
      assert.equal((await here.apiKeys.authenticate(secret)).ok, true);

      await there.apiKeys.revokeKey(apiKey.id);
      clock.advance(1000);

      assert.equal((await here.apiKeys.authenticate(secret)).ok, false);
    });

    test('when this process revokes a key, then it is refused at once', async (t) => {
      const { here, account } = await twoProcesses(t, backend);
      const { apiKey, secret } = await here.apiKeys.createKey({ accountId: account.id });
      assert.equal((await here.apiKeys.authenticate(secret)).ok, true);

      await here.apiKeys.revokeKey(apiKey.id);

      assert.equal((await here.apiKeys.authenticate(secret)).ok, false);
    });

    test('when a key was refused as unknown and another process then creates it, then it is accepted once 1 s has passed', async (t) => {
      const { clock, here, other, account } = await twoProcesses(t, backend);
      const generated = generateApiKey('production');
      assert.equal((await here.apiKeys.authenticate(generated.key)).ok, false);

      await other.apiKeys.create({ accountId: account.id, hash: generated.hash, start: generated.start, createdAt: new Date().toISOString(), scopes: API_KEY_SCOPES });
      clock.advance(1000);

      assert.deepEqual(await here.apiKeys.authenticate(generated.key), { ok: true, principal: { keyId: 1, accountId: account.id, scopes: API_KEY_SCOPES } });
    });

    test('when this process creates a key that was just refused as unknown, then it is accepted at once', async (t) => {
      const { storage, account, clock } = await twoProcesses(t, backend);
      const cached = cacheApiKeyLookups(storage.apiKeys, clock);
      const generated = generateApiKey('production');
      assert.equal(await cached.findActiveByHash(generated.hash), undefined);

      await cached.create({ accountId: account.id, hash: generated.hash, start: generated.start, createdAt: new Date().toISOString(), scopes: API_KEY_SCOPES });

      assert.ok(await cached.findActiveByHash(generated.hash));
    });

    test('when a cached key reaches its expiry, then it is refused at once as expired', async (t) => {
      const { clock, here, account } = await twoProcesses(t, backend);
      const expiresAt = new Date(clock.now().getTime() + 500).toISOString();
      const { secret } = await here.apiKeys.createKey({ accountId: account.id, expiresAt });
      assert.equal((await here.apiKeys.authenticate(secret)).ok, true);

      clock.advance(500);

      assert.deepEqual(await here.apiKeys.authenticate(secret), { ok: false, code: 'expired_api_key', message: `The API key expired at ${expiresAt}.` });
    });

    test('when this process rolls a cached key with no grace, then the old key is refused at once and the new one accepted', async (t) => {
      const { clock, here, account } = await twoProcesses(t, backend);
      const { apiKey, secret } = await here.apiKeys.createKey({ accountId: account.id });
      assert.equal((await here.apiKeys.authenticate(secret)).ok, true);

      const rolled = await here.apiKeys.rollKey({ keyId: apiKey.id, graceMs: 0 });
      clock.advance(1);

      assert.equal((await here.apiKeys.authenticate(secret)).ok, false);
      assert.equal((await here.apiKeys.authenticate(rolled.secret)).ok, true);
    });

    test('when a flood of made-up keys arrives, then known keys stay cached (a revocation elsewhere is not seen before its 1 s)', async (t) => {
      const { storage, there, account, clock } = await twoProcesses(t, backend);
      const cached = cacheApiKeyLookups(storage.apiKeys, clock, { maxKnown: 10, maxUnknown: 50 });
      const { apiKey, secret } = await there.apiKeys.createKey({ accountId: account.id });
      const hash = hashApiKey(secret);
      assert.ok(await cached.findActiveByHash(hash));

      for (let i = 0; i < 500; i++) assert.equal(await cached.findActiveByHash(generateApiKey('production').hash), undefined);
      await there.apiKeys.revokeKey(apiKey.id);

      // Still served from memory: the flood did not evict it, and its second has not passed.
      assert.ok(await cached.findActiveByHash(hash));
      clock.advance(1000);
      assert.equal(await cached.findActiveByHash(hash), undefined);
    });

    test('when more keys are in use than the cache holds, then the least recently used is looked up again', async (t) => {
      const { storage, there, account, clock } = await twoProcesses(t, backend);
      const cached = cacheApiKeyLookups(storage.apiKeys, clock, { maxKnown: 2 });
      const keys = await Promise.all([1, 2, 3].map(() => there.apiKeys.createKey({ accountId: account.id })));
      const hashes = keys.map((k) => hashApiKey(k.secret));
      for (const hash of hashes) assert.ok(await cached.findActiveByHash(hash));

      for (const key of keys) await there.apiKeys.revokeKey(key.apiKey.id);

      // The first was evicted, so storage is asked (and says revoked); the two most recent are still remembered.
      assert.equal(await cached.findActiveByHash(hashes[0] ?? ''), undefined);
      assert.ok(await cached.findActiveByHash(hashes[2] ?? ''));
    });
  });
}
