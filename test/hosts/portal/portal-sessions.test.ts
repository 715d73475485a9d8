/** Portal sessions over real requests, on every backend: fixation, timeouts, sign-out, password change, disabled users. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { httpBackends } from '../../support/storage.js';
import { createTestPortal, pageText, signUp, TEST_PASSWORD } from '../../support/portal.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

for (const backend of httpBackends()) {
  describe(`portal sessions: ${backend.name}`, () => {
    test('when a user signs up, then a session cookie of 256 random bits is set HttpOnly and SameSite=Lax, and the database holds only its SHA-256', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client, response } = await signUp(portal);
      assert.equal(response.headers.location, '/');
      const cookie = response.cookies.find((c) => c.name === 'so_session');
      assert.ok(cookie !== undefined);
      assert.match(cookie.value, /^[A-Za-z0-9_-]{43}$/);
      assert.equal(cookie.httpOnly, true);
      assert.equal(cookie.sameSite, 'Lax');
      assert.equal(cookie.path, '/');
      assert.equal(await portal.storage.sessions.find(cookie.value), undefined, 'the cookie value itself is not a stored key');
      assert.notEqual(await portal.storage.sessions.find(sha256(cookie.value)), undefined);
      const home = await client.get('/');
      assert.equal(home.statusCode, 200);
      assert.equal(home.headers['cache-control'], 'no-store');
      const logs = portal.logs.join('');
      assert.ok(logs.length > 0);
      assert.ok(!logs.includes(TEST_PASSWORD), 'the password is never logged');
      assert.ok(!logs.includes(cookie.value), 'the session id is never logged');
    });

    test('when a browser that already has a session cookie signs in, then it gets a new session id and the old one no longer works (no fixation)', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client, email } = await signUp(portal);
      const before = client.sessionCookie();
      // A signed-in browser is sent from /sign-in to /; its form token comes from the page it has (a second tab's sign-in form).
      const response = await client.post('/sign-in', { email, password: TEST_PASSWORD }, {}, '/');
      assert.equal(response.statusCode, 303);
      const after = client.sessionCookie();
      assert.ok(before !== undefined && after !== undefined);
      assert.notEqual(after, before);
      const replay = portal.client();
      replay.cookies.set('so_session', before);
      assert.equal((await replay.get('/')).statusCode, 303, 'the pre-sign-in id is dead');
      assert.equal((await client.get('/')).statusCode, 200);
    });

    test('when an attacker plants a session id before sign-in, then signing in does not adopt it', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { email } = await signUp(portal);
      const victim = portal.client();
      victim.cookies.set('so_session', 'A'.repeat(43));
      await victim.post('/sign-in', { email, password: TEST_PASSWORD }, {}, '/sign-in');
      assert.notEqual(victim.sessionCookie(), 'A'.repeat(43));
      const attacker = portal.client();
      attacker.cookies.set('so_session', 'A'.repeat(43));
      assert.equal((await attacker.get('/')).statusCode, 303);
    });

    test('when a session is unused for 30 minutes, then it ends; when used within that, it lives on until 12 hours after sign-in', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client } = await signUp(portal);
      portal.clock.advance(29 * 60_000);
      assert.equal((await client.get('/')).statusCode, 200, 'used within the idle timeout');
      portal.clock.advance(29 * 60_000);
      assert.equal((await client.get('/')).statusCode, 200, 'idle time counts from the last use');
      portal.clock.advance(30 * 60_000);
      const idle = await client.get('/settings');
      assert.equal(idle.statusCode, 303);
      assert.equal(idle.headers.location, '/sign-in?next=%2Fsettings');

      const { client: busy } = await signUp(portal);
      for (let minutes = 0; minutes < 12 * 60 - 20; minutes += 20) {
        portal.clock.advance(20 * 60_000);
        assert.equal((await busy.get('/')).statusCode, 200, `active at ${minutes + 20} minutes`);
      }
      portal.clock.advance(20 * 60_000);
      assert.equal((await busy.get('/')).statusCode, 303, 'ended at the absolute timeout however active');
    });

    test('when the timeouts are configured shorter, then those apply', async (t) => {
      const portal = await createTestPortal(t, backend, { env: { PORTAL_SESSION_IDLE_MINUTES: '5', PORTAL_SESSION_ABSOLUTE_HOURS: '1' } });
      const { client } = await signUp(portal);
      portal.clock.advance(5 * 60_000);
      assert.equal((await client.get('/')).statusCode, 303);
    });

    test('when a user signs out, then the session ends on the server: the old cookie replayed is refused', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client } = await signUp(portal);
      const cookie = client.sessionCookie() ?? '';
      await client.get('/');
      const out = await client.post('/sign-out', {});
      assert.equal(out.statusCode, 303);
      assert.equal(out.headers.location, '/sign-in?signed-out=1');
      assert.equal(client.sessionCookie(), undefined, 'the cookie is cleared');
      assert.equal(await portal.storage.sessions.find(sha256(cookie)), undefined);
      const replay = portal.client();
      replay.cookies.set('so_session', cookie);
      assert.equal((await replay.get('/')).statusCode, 303);
    });

    test('when the password is changed, then other sessions end, this one stays, and only the new password signs in', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client, email } = await signUp(portal);
      const other = portal.client();
      await other.post('/sign-in', { email, password: TEST_PASSWORD }, {}, '/sign-in');
      assert.equal((await other.get('/')).statusCode, 200);

      const wrong = await client.post('/settings/password', { currentPassword: 'not my password at all', newPassword: 'a brand new passphrase' }, {}, '/settings');
      assert.equal(wrong.statusCode, 400);
      assert.match(pageText(wrong.body), /The current password is incorrect\./);
      assert.equal((await other.get('/')).statusCode, 200, 'a refused change ends nothing');

      const changed = await client.post('/settings/password', { currentPassword: TEST_PASSWORD, newPassword: 'a brand new passphrase' }, {}, '/settings');
      assert.equal(changed.statusCode, 200);
      assert.match(pageText(changed.body), /Your password was changed/);
      assert.equal((await other.get('/')).statusCode, 303, 'the other session ended');
      assert.equal((await client.get('/')).statusCode, 200, 'this session stays');
      const old = await portal.client().post('/sign-in', { email, password: TEST_PASSWORD }, {}, '/sign-in');
      assert.equal(old.statusCode, 401);
      const fresh = await portal.client().post('/sign-in', { email, password: 'a brand new passphrase' }, {}, '/sign-in');
      assert.equal(fresh.statusCode, 303);
    });

    test('when the user chooses Sign out everywhere, then every session of theirs ends, this one included', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client, email } = await signUp(portal);
      const other = portal.client();
      await other.post('/sign-in', { email, password: TEST_PASSWORD }, {}, '/sign-in');
      const response = await client.post('/settings/sign-out-everywhere', {}, {}, '/settings');
      assert.equal(response.statusCode, 303);
      assert.equal((await client.get('/')).statusCode, 303);
      assert.equal((await other.get('/')).statusCode, 303);
    });

    test('when an operator disables a user, then their session is refused at once by another process of the portal, and they cannot sign in', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client, email } = await signUp(portal);
      const elsewhere = await portal.anotherProcess();
      client.withApp(elsewhere);
      assert.equal((await client.get('/')).statusCode, 200);
      await portal.services.users.disableUser(email);
      const started = Date.now();
      assert.equal((await client.get('/')).statusCode, 303);
      assert.ok(Date.now() - started < 1000);
      const again = await portal.client().withApp(elsewhere).post('/sign-in', { email, password: TEST_PASSWORD }, {}, '/sign-in');
      assert.equal(again.statusCode, 401);
      assert.match(pageText(again.body), /Email or password is incorrect\./);
    });

    test('when the portal is reached over https, then the cookies are Secure and __Host- prefixed', async (t) => {
      const portal = await createTestPortal(t, backend, { env: { PORTAL_PUBLIC_URL: 'https://portal.example.com' } });
      const { response } = await signUp(portal);
      const cookie = response.cookies.find((c) => c.name === '__Host-so_session');
      assert.ok(cookie !== undefined, `cookies: ${response.cookies.map((c) => c.name).join(', ')}`);
      assert.equal(cookie.secure, true);
      assert.equal(cookie.path, '/');
      assert.equal(cookie.domain, undefined);
      const form = await portal.client().get('/sign-in');
      const csrf = form.cookies.find((c) => c.name === '__Host-so_csrf');
      assert.equal(csrf?.secure, true);
      assert.equal(csrf.httpOnly, true);
      assert.equal(csrf.sameSite, 'Strict');
    });
  });
}
