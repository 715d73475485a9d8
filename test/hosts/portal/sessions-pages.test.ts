/** The Sessions section of /settings over real requests, on every backend: the list, End, Sign out everywhere else, the offer, CSRF and other users' handles. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { httpBackends } from '../../support/storage.js';
import { createTestPortal, pageText, signUp, TEST_PASSWORD, type PortalClient, type TestPortal } from '../../support/portal.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The handles of the End buttons on a settings page (the other sessions'). */
const endHandles = (html: string) => [...html.matchAll(/name="session" value="([0-9a-f]{32})"/g)].map((match) => match[1]);

/** A second browser signed in as the same user. */
async function signInAgain(portal: TestPortal, email: string): Promise<PortalClient> {
  const other = portal.client();
  const response = await other.post('/sign-in', { email, password: TEST_PASSWORD }, {}, '/sign-in');
  assert.equal(response.statusCode, 303);
  return other;
}

for (const backend of httpBackends()) {
  describe(`portal sessions list: ${backend.name}`, () => {
    test('when a user is signed in in two browsers, then each lists both with "This session" on its own, never a session id or its hash; End ends the other at once, audited', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client, email } = await signUp(portal);
      const other = await signInAgain(portal, email);
      const page = await client.get('/settings');
      assert.equal(page.statusCode, 200);
      const text = pageText(page.body);
      assert.equal(text.match(/This session/g)?.length, 1);
      assert.match(text, /Sign out everywhere else/);
      for (const cookie of [client.sessionCookie(), other.sessionCookie()]) {
        assert.ok(cookie !== undefined);
        assert.ok(!page.body.includes(cookie) && !page.body.includes(sha256(cookie)), 'no session id or hash on the page');
      }
      const [handle, ...more] = endHandles(page.body);
      assert.ok(handle !== undefined && more.length === 0, 'one End button: the other session');
      assert.equal(endHandles((await other.get('/settings')).body).length, 1);

      const ended = await client.post('/settings/sessions/end', { session: handle });
      assert.equal(ended.statusCode, 303);
      assert.equal(ended.headers.location, '/settings?sessions=ended#sessions-heading');
      assert.equal((await other.get('/settings')).statusCode, 303, 'the other browser is signed out on its next request');
      const after = await client.get('/settings?sessions=ended');
      assert.match(pageText(after.body), /That session has ended/);
      assert.deepEqual(endHandles(after.body), []);
      const user = await portal.storage.users.findByEmail(email);
      assert.ok(user !== undefined);
      const { entries } = await portal.services.audit.list(user.accountId, { limit: 1 });
      assert.equal(entries[0]?.action, 'session_expired');
      assert.deepEqual(entries[0]?.details, { reason: 'revoked' });
      assert.deepEqual(entries[0]?.target, { kind: 'session', id: handle });
      assert.equal(entries[0]?.actor.kind, 'user');
    });

    test('when End names another user’s session, this browser’s own or an unknown one, then it is 404 and nothing ends', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client: mallory, email: malloryEmail } = await signUp(portal);
      const { client: victim, email: victimEmail } = await signUp(portal, { storeName: 'Victim Pets' });
      const victimElsewhere = await signInAgain(portal, victimEmail);
      const [victimHandle] = endHandles((await victimElsewhere.get('/settings')).body);
      assert.ok(victimHandle !== undefined);
      const malloryOther = await signInAgain(portal, malloryEmail);
      const [otherHandle] = endHandles((await mallory.get('/settings')).body);
      const own = (await portal.storage.sessions.listForUser((await portal.storage.users.findByEmail(malloryEmail))?.id ?? 0, sha256(mallory.sessionCookie() ?? ''))).find((s) => s.current);
      assert.ok(own !== undefined && otherHandle !== undefined);
      for (const session of [victimHandle, own.handle, '0'.repeat(32)]) {
        const response = await mallory.post('/settings/sessions/end', { session }, {}, '/settings');
        assert.equal(response.statusCode, 404, session);
        assert.match(pageText(response.body), /That session has already ended, or is not one of yours/);
      }
      const malformed = await mallory.post('/settings/sessions/end', { session: 'not-a-handle' }, {}, '/settings');
      assert.equal(malformed.statusCode, 400);
      for (const browser of [victim, victimElsewhere, mallory, malloryOther]) assert.equal((await browser.get('/')).statusCode, 200, 'every session still works');
    });

    test('when End or Sign out everywhere else is posted without the CSRF token, or from another origin, then it is 403 and nothing ends', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client, email } = await signUp(portal);
      const other = await signInAgain(portal, email);
      const [handle] = endHandles((await client.get('/settings')).body);
      assert.ok(handle !== undefined);
      for (const [url, fields] of [['/settings/sessions/end', { session: handle }], ['/settings/sessions/end-others', {}]] as const) {
        assert.equal((await client.post(url, fields, { csrf: null })).statusCode, 403, `${url} without a token`);
        assert.equal((await client.post(url, fields, { origin: 'https://evil.example' }, '/settings')).statusCode, 403, `${url} from another origin`);
      }
      assert.equal((await other.get('/')).statusCode, 200);
    });

    test('when the user chooses Sign out everywhere else, then every other session ends, this one stays, and it is audited with how many', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client, email } = await signUp(portal);
      const others = [await signInAgain(portal, email), await signInAgain(portal, email)];
      const response = await client.post('/settings/sessions/end-others', {}, {}, '/settings');
      assert.equal(response.statusCode, 303);
      assert.equal(response.headers.location, '/settings?sessions=others#sessions-heading');
      for (const other of others) assert.equal((await other.get('/')).statusCode, 303);
      const page = await client.get('/settings?sessions=others');
      assert.equal(page.statusCode, 200);
      assert.match(pageText(page.body), /Every other session has ended/);
      assert.doesNotMatch(pageText(page.body), /Sign out everywhere else/, 'nothing left to end');
      const user = await portal.storage.users.findByEmail(email);
      const { entries } = await portal.services.audit.list(user?.accountId ?? 0, { limit: 1 });
      assert.equal(entries[0]?.action, 'session_expired');
      assert.deepEqual(entries[0]?.details, { reason: 'revoked_others', count: 2 });
    });

    test('when a passkey was added and other sessions remain, then the page offers to end them; after a password change none remain to offer', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client, email } = await signUp(portal);
      assert.doesNotMatch(pageText((await client.get('/settings?passkey=added')).body), /End the other sessions/, 'no other session, no offer');
      const other = await signInAgain(portal, email);
      const offered = pageText((await client.get('/settings?passkey=added')).body);
      assert.match(offered, /You are still signed in in one other browser\..*End the other sessions/s);
      assert.doesNotMatch(pageText((await client.get('/settings')).body), /End the other sessions/, 'offered only after a change');
      const changed = await client.post('/settings/password', { currentPassword: TEST_PASSWORD, newPassword: 'a brand new passphrase' }, {}, '/settings');
      assert.equal(changed.statusCode, 200);
      assert.match(pageText(changed.body), /Your other sessions have ended\./);
      assert.doesNotMatch(pageText(changed.body), /End the other sessions/);
      assert.deepEqual(endHandles(changed.body), [], 'the list shows only this session');
      assert.equal((await other.get('/')).statusCode, 303);
    });

    test('when another session has been unused for 30 minutes (the idle timeout), then it is no longer listed', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client, email } = await signUp(portal);
      await signInAgain(portal, email);
      portal.clock.advance(29.5 * 60_000);
      assert.equal(endHandles((await client.get('/settings')).body).length, 1, 'still live');
      portal.clock.advance(60_000);
      assert.deepEqual(endHandles((await client.get('/settings')).body), [], 'idle past the timeout: gone from the list');
    });
  });
}
