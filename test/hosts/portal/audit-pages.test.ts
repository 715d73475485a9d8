/** The /audit page and the portal's own audit records, on every backend. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eventually } from '../../support/quickstart.js';
import { createTestPortal, pageText, signUp, TEST_PASSWORD } from '../../support/portal.js';
import { httpBackends } from '../../support/storage.js';

for (const backend of httpBackends()) {
  describe(`portal /audit: ${backend.name}`, () => {
    test('when a user signs up, signs in (after a failure), changes the password, makes a key and signs out, then each is recorded as that user from their address, shown newest first', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client, email } = await signUp(portal);
      const user = await portal.storage.users.findByEmail(email);
      assert.ok(user !== undefined);
      const stranger = portal.client();
      assert.equal((await stranger.post('/sign-in', { email, password: 'not the password at all' }, {}, '/sign-in')).statusCode, 401);
      assert.equal((await stranger.post('/sign-in', { email: 'nobody@example.com', password: 'not the password at all' }, {}, '/sign-in')).statusCode, 401);
      assert.equal((await client.post('/sign-in', { email, password: TEST_PASSWORD }, {}, '/')).statusCode, 303);
      const newPassword = 'a different long passphrase';
      assert.equal((await client.post('/settings/password', { currentPassword: TEST_PASSWORD, newPassword }, {}, '/settings')).statusCode, 200);
      assert.equal((await client.post('/keys', { name: 'till', expiresIn: 'never', scope: 'orders:read' }, {}, '/keys')).statusCode, 201);

      const actions = await eventually(async () => {
        const { entries } = await portal.services.audit.list(user.accountId);
        const names = entries.map((entry) => entry.action);
        return names.includes('authn_login_fail') ? entries : undefined;
      });
      assert.deepEqual(
        actions.map((entry) => entry.action),
        ['authn_token_created', 'authn_password_change', 'authn_login_success', 'authn_login_fail', 'user_created'],
      );
      for (const entry of actions) {
        assert.deepEqual(entry.actor, { kind: 'user', id: user.id });
        assert.equal(entry.address, '127.0.0.1');
      }

      const page = await client.get('/audit');
      assert.equal(page.statusCode, 200);
      assert.equal(page.headers['cache-control'], 'no-store');
      const text = pageText(page.body);
      assert.ok(text.indexOf('API key created') < text.indexOf('Password changed') && text.indexOf('Password changed') < text.indexOf('Sign-in failed'), 'newest first');

      assert.equal((await client.post('/sign-out', {}, {}, '/')).statusCode, 303);
      const { entries } = await portal.services.audit.list(user.accountId, { limit: 1 });
      assert.equal(entries[0]?.action, 'session_expired');
      assert.deepEqual(entries[0]?.details, { reason: 'logout' });
    });

    test('when the trail is longer than a page, then Next page walks it to the end; a forged cursor gets a clear 400', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client, email } = await signUp(portal);
      const user = await portal.storage.users.findByEmail(email);
      assert.ok(user !== undefined);
      for (let index = 0; index < 30; index++) {
        await portal.services.audit.record({ accountId: user.accountId, action: 'order_shipped', actor: { kind: 'operator' }, target: { kind: 'order', id: String(index) } });
      }
      const first = await client.get('/audit');
      assert.equal((first.body.match(/<tr>/g) ?? []).length, 1 + 25);
      const next = /<a href="([^"]+)" rel="next">Next page<\/a>/.exec(first.body)?.[1];
      assert.ok(next !== undefined);
      const second = await client.get(next.replace(/&amp;/g, '&'));
      // 30 entries and the sign-up's user_created.
      assert.equal((second.body.match(/<tr>/g) ?? []).length, 1 + 6);
      assert.doesNotMatch(second.body, /rel="next"/);
      assert.match(pageText(second.body), /order 0/);
      const forged = await client.get('/audit?cursor=forged');
      assert.equal(forged.statusCode, 400);
      assert.match(pageText(forged.body), /That page link is not valid any more/);
    });
  });
}
