/** The /keys pages over real requests, on every backend: create, show once, roll, revoke, CSRF, and no API key accepted by the portal. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildTestStoreApp } from '../../support/app.js';
import { capturingLogger } from '../../support/logs.js';
import { createTestPortal, listOrdersWith, pageText, portalStoreApp, signUp, type PortalClient } from '../../support/portal.js';
import { httpBackends } from '../../support/storage.js';
import { testServices } from '../../support/container.js';
import { createTestQuickstartApp } from '../../support/quickstart.js';
import { openStorage } from '../../../src/storage/open-storage.js';
import { API_KEY_SCOPES } from '../../../src/api-keys/api-key-scopes.js';

const NEW_KEY = /id="new-api-key"[^>]*value="([^"]+)"/;

/** Every scope a key can hold: the form's checkboxes, all checked by default. */
const ALL_SCOPES: string[] = [...API_KEY_SCOPES];

async function createKey(client: PortalClient, fields: Record<string, string | string[]> = {}): Promise<{ secret: string; body: string; status: number; headers: Record<string, unknown> }> {
  const response = await client.post('/keys', { name: 'till', expiresIn: '90d', scope: ALL_SCOPES, ...fields }, {}, '/keys');
  return { secret: NEW_KEY.exec(response.body)?.[1] ?? '', body: response.body, status: response.statusCode, headers: response.headers };
}


for (const backend of httpBackends()) {
  describe(`portal /keys: ${backend.name}`, () => {
    test('when a user creates a key, then its secret is shown once (no-store, never in a URL) and it works on the store host; the table then shows only its start', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client } = await signUp(portal);
      const page = await client.get('/keys');
      const text = pageText(page.body);
      for (const label of ['Key name', 'Expires in', 'Create key']) assert.ok(text.includes(label), label);
      assert.equal((page.body.match(/type="checkbox" name="scope" value="[^"]+" checked/g) ?? []).length, ALL_SCOPES.length, 'every scope is checked by default');
      assert.match(page.body, /<option value="90d" selected>90 days<\/option>/);

      const created = await createKey(client);
      assert.equal(created.status, 201);
      assert.equal(created.headers['cache-control'], 'no-store');
      assert.equal(created.headers.location, undefined);
      assert.match(created.secret, /^so_[a-z]+_[A-Za-z0-9]{30,}/);
      assert.match(created.body, /<label for="new-api-key">New API key<\/label>/);
      assert.match(created.body, /readonly/);
      assert.equal((await listOrdersWith(await portalStoreApp(t, portal), created.secret)).statusCode, 200);
      const quickstart = await createTestQuickstartApp(t, backend, { storage: portal.storage, services: portal.services });
      const message = await quickstart.app.inject({
        method: 'POST',
        url: '/messages',
        headers: { authorization: `Bearer ${created.secret}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ message: 'from a portal key' }),
      });
      assert.equal(message.statusCode, 202, 'the same key works on the quickstart host');

      const again = await client.get('/keys');
      for (const column of ['Name', 'Key', 'Scopes', 'Created', 'Expires', 'Last used']) assert.ok(again.body.includes(`<th scope="col">${column}</th>`), column);
      assert.ok(!again.body.includes(created.secret), 'never shown again');
      assert.ok(again.body.includes(`${created.secret.slice(0, 12)}`), 'the visible start is listed');
      assert.ok(!portal.logs.join('\n').includes(created.secret), 'never logged');
    });

    test('when a user picks some scopes and 7 days, then the key holds those scopes only and expires in 7 days', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client } = await signUp(portal);
      const created = await createKey(client, { scope: 'orders:read', expiresIn: '7d' });
      const auth = await portal.services.apiKeys.authenticate(created.secret);
      assert.ok(auth.ok);
      assert.deepEqual(auth.principal.scopes, ['orders:read']);
      const days = ((Date.parse(auth.principal.expiresAt ?? '') - portal.clock.now().getTime()) / 86_400_000);
      assert.equal(Math.round(days), 7);
    });

    test('when the form is wrong (no scope, unknown expiry, empty name), then the page says what to fix with 400 and no key is made', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client, email } = await signUp(portal);
      const noScope = await createKey(client, { scope: [] });
      assert.equal(noScope.status, 400);
      assert.match(pageText(noScope.body), /Choose at least one scope\./);
      const badExpiry = await createKey(client, { expiresIn: 'forever' });
      assert.equal(badExpiry.status, 400);
      const noName = await createKey(client, { name: '  ' });
      assert.equal(noName.status, 400);
      assert.match(pageText(noName.body), /Key name must be/);
      const user = await portal.storage.users.findByEmail(email);
      assert.ok(user !== undefined);
      assert.deepEqual(await portal.services.apiKeys.listKeys(user.accountId), []);
    });

    test('when a user revokes a key through the confirmation step, then it is refused by the store host at once', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client } = await signUp(portal);
      const { secret } = await createKey(client);
      const store = await portalStoreApp(t, portal);
      assert.equal((await listOrdersWith(store, secret)).statusCode, 200);
      const keyId = /href="\/keys\/(\d+)\/revoke"/.exec((await client.get('/keys')).body)?.[1];
      assert.ok(keyId !== undefined);
      const confirm = await client.get(`/keys/${keyId}/revoke`);
      assert.equal(confirm.statusCode, 200);
      assert.match(confirm.body, /<button type="submit" class="button danger">Revoke key<\/button>/);
      const revoked = await client.post(`/keys/${keyId}/revoke`, {});
      assert.equal(revoked.statusCode, 303);
      assert.equal(revoked.headers.location, '/keys?revoked=1');
      assert.equal((await listOrdersWith(store, secret)).statusCode, 401);
    });

    test('when a key is revoked in the portal, then a store host in another process (its own storage and key cache) refuses it once its 1 s cache time has passed', async (t) => {
      const { storage, config: database } = await backend.freshDatabase(t);
      const portal = await createTestPortal(t, backend, { over: { storage, database } });
      const { client } = await signUp(portal);
      const { secret } = await createKey(client);
      const otherStorage = openStorage(database);
      t.after(() => otherStorage.close());
      const otherServices = testServices(otherStorage, { config: portal.config, clock: portal.clock });
      const other = await buildTestStoreApp({ logger: capturingLogger().logger, services: otherServices, storage: otherStorage });
      t.after(() => other.close());
      assert.equal((await listOrdersWith(other, secret)).statusCode, 200, 'the other process has the key in its cache');
      const keyId = /href="\/keys\/(\d+)\/revoke"/.exec((await client.get('/keys')).body)?.[1] ?? '';
      assert.equal((await client.post(`/keys/${keyId}/revoke`, {}, {}, `/keys/${keyId}/revoke`)).statusCode, 303);
      assert.equal((await listOrdersWith(await portalStoreApp(t, portal), secret)).statusCode, 401, "the portal's own process refuses it at once");
      portal.clock.advance(1000);
      assert.equal((await listOrdersWith(other, secret)).statusCode, 401, 'the other process refuses it 1 s later');
    });

    test('when a user rolls a key with grace "now", then the new key is shown once and works, and the old one is refused', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client } = await signUp(portal);
      const { secret: old } = await createKey(client);
      const store = await portalStoreApp(t, portal);
      const keyId = /href="\/keys\/(\d+)\/roll"/.exec((await client.get('/keys')).body)?.[1];
      const confirm = await client.get(`/keys/${keyId ?? ''}/roll`);
      assert.match(confirm.body, />Roll key<\/button>/);
      for (const label of ['now', '1 hour', '24 hours', '7 days']) assert.ok(confirm.body.includes(`>${label}</option>`), label);
      const rolled = await client.post(`/keys/${keyId ?? ''}/roll`, { grace: 'now' });
      assert.equal(rolled.statusCode, 201);
      const secret = NEW_KEY.exec(rolled.body)?.[1] ?? '';
      assert.notEqual(secret, old);
      assert.equal((await listOrdersWith(store, secret)).statusCode, 200);
      assert.equal((await listOrdersWith(store, old)).statusCode, 401);
    });

    test("when a user opens or revokes another account's key, then it is not found and the key still works", async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client: owner } = await signUp(portal);
      const { secret } = await createKey(owner);
      const keyId = /href="\/keys\/(\d+)\/revoke"/.exec((await owner.get('/keys')).body)?.[1] ?? '';
      const { client: other } = await signUp(portal);
      assert.equal((await other.get(`/keys/${keyId}/revoke`)).statusCode, 404);
      assert.equal((await other.post(`/keys/${keyId}/revoke`, {}, {}, '/keys')).statusCode, 404);
      assert.ok((await portal.services.apiKeys.authenticate(secret)).ok);
    });

    test('when a form is forged (no token, another origin), then 403 and nothing changes: no key made, none revoked', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client } = await signUp(portal);
      const { secret } = await createKey(client);
      const keyId = /href="\/keys\/(\d+)\/revoke"/.exec((await client.get('/keys')).body)?.[1] ?? '';
      const before = (await client.get('/keys')).body.match(/<tr>/g)?.length;
      assert.equal((await client.post('/keys', { name: 'evil', expiresIn: 'never', scope: 'orders:read' }, { csrf: null })).statusCode, 403);
      assert.equal((await client.post('/keys', { name: 'evil', expiresIn: 'never', scope: 'orders:read' }, { origin: 'https://evil.example' })).statusCode, 403);
      assert.equal((await client.post(`/keys/${keyId}/revoke`, {}, { csrf: 'forged' })).statusCode, 403);
      assert.equal((await client.post(`/keys/${keyId}/roll`, { grace: 'now' }, { origin: null, csrf: null })).statusCode, 403);
      assert.equal((await client.get('/keys')).body.match(/<tr>/g)?.length, before);
      assert.ok((await portal.services.apiKeys.authenticate(secret)).ok, 'the key still works');
    });

    test('when a request to the portal carries an API key instead of a session, then it is treated as signed out', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client, email } = await signUp(portal);
      const { secret } = await createKey(client);
      for (const url of ['/', '/keys', '/orders', '/audit', '/settings']) {
        const response = await portal.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${secret}` } });
        assert.equal(response.statusCode, 303, url);
        assert.match(String(response.headers.location), /^\/sign-in/);
      }
      const post = await portal.app.inject({
        method: 'POST',
        url: '/keys',
        headers: { authorization: `Bearer ${secret}`, origin: client.origin, 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'name=x&expiresIn=never&scope=orders:read',
      });
      assert.equal(post.statusCode, 303, 'sent to sign in, as any signed-out form post');
      assert.equal(post.headers.location, '/sign-in');
      const user = await portal.storage.users.findByEmail(email);
      assert.equal((await portal.services.apiKeys.listKeys(user?.accountId ?? 0)).length, 1, 'no key was made');
    });
  });
}
