import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Writable } from 'node:stream';
import { API_KEY_SCOPES } from '../../src/api-keys/api-key-scopes.js';
import { createLogger } from '../../src/http/logging.js';
import { createRateLimiter } from '../../src/http/protection/rate-limit.js';
import type { Clock } from '../../src/shared/clock.js';
import { buildTestStoreApp, createTestApp, errorBody } from '../support/app.js';
import { httpBackends } from '../support/storage.js';
import { testConfig } from '../support/container.js';

/** The documented limits, as a process started without limit variables has them. */
const TEST_LIMITS = testConfig().limits;

/** A clock the test moves by hand. */
function manualClock(start = '2026-11-22T00:00:00.000Z'): Clock & { advance(ms: number): void } {
  let now = Date.parse(start);
  return { now: () => new Date(now), advance: (ms) => (now += ms) };
}

const HOUR = 3_600_000;

for (const backend of httpBackends()) {
  describe(`API key lifetime, scopes, rotation and last use (${backend.name})`, () => {
    test('when a key has expired, then 401 expired_api_key with an invalid_token challenge; before that it works', async (t) => {
      const clock = manualClock();
      const { app, services, tenant } = await createTestApp(t, backend, { clock });
      const { account } = await tenant();
      const { secret } = await services.apiKeys.createKey({ accountId: account.id, expiresAt: new Date(clock.now().getTime() + HOUR).toISOString() });
      const auth = { authorization: `Bearer ${secret}` };
      assert.equal((await app.inject({ method: 'GET', url: '/v1/store/orders', headers: auth })).statusCode, 200);
      clock.advance(HOUR);
      const expired = await app.inject({ method: 'GET', url: '/v1/store/orders', headers: auth });
      assert.equal(expired.statusCode, 401);
      const error = errorBody(expired);
      assert.equal(error.code, 'expired_api_key');
      assert.match(error.message, /expired at 2026-11-22T01:00:00\.000Z/);
      assert.equal(expired.headers['www-authenticate'], 'Bearer realm="store-orders", error="invalid_token"');
    });

    test('when an expiry in the past or an empty scope list is asked for, then the key is refused at creation', async (t) => {
      const clock = manualClock();
      const { services, tenant } = await createTestApp(t, backend, { clock });
      const { account } = await tenant();
      await assert.rejects(services.apiKeys.createKey({ accountId: account.id, expiresAt: clock.now().toISOString() }), /future/);
      await assert.rejects(services.apiKeys.createKey({ accountId: account.id, scopes: [] }), /at least one scope/);
    });

    test('when a key lacks the scope a route needs, then 403 insufficient_scope with the RFC 6750 challenge; routes it has scope for work', async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      const { account } = await tenant();
      const readOnly = await services.apiKeys.createKey({ accountId: account.id, scopes: ['orders:read'] });
      const writeOnly = await services.apiKeys.createKey({ accountId: account.id, scopes: ['orders:write'] });
      const petsOnly = await services.apiKeys.createKey({ accountId: account.id, scopes: ['pets:read', 'messages:write'] });
      const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });

      assert.equal((await app.inject({ method: 'GET', url: '/v1/store/orders', headers: bearer(readOnly.secret) })).statusCode, 200);
      const cancel = await app.inject({ method: 'DELETE', url: '/v1/store/orders/1', headers: bearer(readOnly.secret) });
      assert.equal(cancel.statusCode, 403);
      assert.equal(errorBody(cancel).code, 'insufficient_scope');
      assert.equal(cancel.headers['www-authenticate'], 'Bearer realm="store-orders", error="insufficient_scope", scope="orders:write"');

      const list = await app.inject({ method: 'GET', url: '/v1/store/orders', headers: bearer(writeOnly.secret) });
      assert.equal(list.statusCode, 403);
      assert.match(String(list.headers['www-authenticate']), /scope="orders:read"/);
      assert.equal((await app.inject({ method: 'DELETE', url: '/v1/store/orders/1', headers: bearer(writeOnly.secret) })).statusCode, 404);

      for (const request of [
        { method: 'GET', url: '/v1/store/orders' },
        { method: 'DELETE', url: '/v1/store/orders/1' },
        { method: 'HEAD', url: '/v1/store/orders' },
      ] as const) {
        assert.equal((await app.inject({ ...request, headers: bearer(petsOnly.secret) })).statusCode, 403, `${request.method} ${request.url}`);
      }
    });

    test('when a key is created without scopes, then it has all of them', async (t) => {
      const { services, tenant } = await createTestApp(t, backend);
      const { account } = await tenant();
      const [key] = await services.apiKeys.listKeys(account.id);
      assert.deepEqual(key?.scopes, [...API_KEY_SCOPES]);
    });

    test('when a route behind authentication declares no scope, then it cannot be registered (fail closed)', async (t) => {
      const { services, storage } = await createTestApp(t, httpBackends()[0] ?? backend);
      const app = await buildTestStoreApp({ logger: createLogger('silent', new Writable({ write: (_c, _e, done) => done() })), services, storage });
      t.after(() => app.close());
      const { requireApiKey } = await import('../../src/api/http/authentication.js');
      await assert.rejects(async () => {
        await app.register(async (scope) => {
          requireApiKey(scope, services.apiKeys, { rateLimiter: createRateLimiter(TEST_LIMITS.rateLimit), keyUsage: services.keyUsage });
          scope.get('/unscoped', async () => ({}));
        });
        await app.ready();
      }, /needs a scope/);
    });

    test('when a key is rolled with a grace period, then old and new keys both work until the grace ends, then only the new one', async (t) => {
      const clock = manualClock();
      const { app, services, tenant } = await createTestApp(t, backend, { clock });
      const { account } = await tenant();
      const original = await services.apiKeys.createKey({
        accountId: account.id,
        name: 'ci',
        scopes: ['orders:read'],
        expiresAt: new Date(clock.now().getTime() + 90 * 24 * HOUR).toISOString(),
      });
      clock.advance(10 * 24 * HOUR);
      const rolled = await services.apiKeys.rollKey({ keyId: original.apiKey.id, graceMs: 24 * HOUR });
      assert.notEqual(rolled.secret, original.secret);
      assert.equal(rolled.apiKey.name, 'ci');
      assert.deepEqual(rolled.apiKey.scopes, ['orders:read']);
      assert.equal(rolled.old.expiresAt, '2026-12-03T00:00:00.000Z', 'old key: now + 24 h grace');
      assert.equal(rolled.apiKey.expiresAt, '2027-03-02T00:00:00.000Z', 'new key: the old lifetime (90 days) from now');

      const list = (secret: string) => app.inject({ method: 'GET', url: '/v1/store/orders', headers: { authorization: `Bearer ${secret}` } });
      assert.equal((await list(original.secret)).statusCode, 200);
      assert.equal((await list(rolled.secret)).statusCode, 200);
      clock.advance(24 * HOUR);
      assert.equal(errorBody(await list(original.secret)).code, 'expired_api_key');
      assert.equal((await list(rolled.secret)).statusCode, 200);

      await assert.rejects(services.apiKeys.rollKey({ keyId: original.apiKey.id, graceMs: 0 }), /expired and cannot be rolled/);
      await assert.rejects(services.apiKeys.rollKey({ keyId: 999, graceMs: 0 }), /does not exist/);
    });

    test('when a key is rolled with no grace, then the old key stops at once; a revoked key cannot be rolled', async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      const { account, key } = await tenant();
      const [record] = await services.apiKeys.listKeys(account.id);
      assert.ok(record);
      const rolled = await services.apiKeys.rollKey({ keyId: record.id, graceMs: 0 });
      assert.equal(rolled.apiKey.expiresAt, undefined, 'a key without expiry is replaced by one without expiry');
      const old = await app.inject({ method: 'GET', url: '/v1/store/orders', headers: { authorization: `Bearer ${key}` } });
      assert.equal(errorBody(old).code, 'expired_api_key');
      await services.apiKeys.revokeKey(rolled.apiKey.id);
      await assert.rejects(services.apiKeys.rollKey({ keyId: rolled.apiKey.id, graceMs: 0 }), /revoked and cannot be rolled/);
    });

    test('when keys are used, then last-used times reach storage only on a flush, not per request', async (t) => {
      const clock = manualClock();
      const { app, services, storage, tenant } = await createTestApp(t, backend, { clock });
      const { account, auth } = await tenant();
      const unused = await services.apiKeys.createKey({ accountId: account.id });
      await app.inject({ method: 'GET', url: '/v1/store/orders', headers: auth });
      clock.advance(5000);
      await app.inject({ method: 'GET', url: '/v1/store/orders', headers: auth });
      const before = await services.apiKeys.listKeys(account.id);
      assert.deepEqual(before.map((k) => k.lastUsedAt), [undefined, undefined], 'nothing written per request');
      await services.keyUsage.flush();
      const after = await services.apiKeys.listKeys(account.id);
      assert.equal(after[0]?.lastUsedAt, '2026-11-22T00:00:05.000Z');
      assert.equal(after.find((k) => k.id === unused.apiKey.id)?.lastUsedAt, undefined);
      // An older time never overwrites a newer one (two processes flushing in any order).
      await storage.apiKeys.recordLastUsed([{ id: after[0]?.id ?? 0, at: '2026-11-21T00:00:00.000Z' }]);
      assert.equal((await services.apiKeys.listKeys(account.id))[0]?.lastUsedAt, '2026-11-22T00:00:05.000Z');
    });
  });
}
