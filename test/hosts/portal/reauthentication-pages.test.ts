/** Re-authentication before sensitive actions, over real requests on every backend: the window after a sign-in or confirmation, the confirmation page, a wrong password and the throttle. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createTestPortal, pageText, signUp, TEST_PASSWORD, type PortalClient, type TestPortal } from '../../support/portal.js';
import { httpBackends } from '../../support/storage.js';

/** Just past the re-authentication window (10 minutes), well within the idle timeout (30). */
const PAST_WINDOW_MS = 11 * 60_000;

/** A second browser signed in as the same user. */
async function signInAgain(portal: TestPortal, email: string): Promise<PortalClient> {
  const other = portal.client();
  assert.equal((await other.post('/sign-in', { email, password: TEST_PASSWORD }, {}, '/sign-in')).statusCode, 303);
  return other;
}

/** Keeps a browser's session alive across the clock's jump (a session idle for 30 minutes ends). */
async function seen(...clients: PortalClient[]): Promise<void> {
  for (const client of clients) assert.equal((await client.get('/settings')).statusCode, 200);
}

/** The confirmation page: asks for the password, carries the form's fields over, posts back to the same action. */
function assertAsksToConfirm(response: { statusCode: number; body: string }, action: string, status = 200): void {
  assert.equal(response.statusCode, status, pageText(response.body));
  assert.match(pageText(response.body), /Confirm it is you/);
  assert.match(response.body, new RegExp(`<form method="post" action="${action}"`));
  assert.match(response.body, /name="confirmPassword" type="password"/);
}

for (const backend of httpBackends()) {
  describe(`portal re-authentication: ${backend.name}`, () => {
    test('when the sign-in is older than 10 minutes, then Sign out everywhere else asks to confirm and ends nothing; with the password it proceeds, and the next action within the window does not ask again', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client, email } = await signUp(portal);
      const other = await signInAgain(portal, email);
      const third = await signInAgain(portal, email);
      portal.clock.advance(5 * 60_000);
      await seen(client, other, third);
      portal.clock.advance(6 * 60_000);
      await seen(client, other, third);

      const asked = await client.post('/settings/sessions/end-others', {}, {}, '/settings');
      assertAsksToConfirm(asked, '/settings/sessions/end-others');
      assert.match(pageText(asked.body), /To sign out everywhere else, confirm with your password/);
      assert.equal((await other.get('/settings')).statusCode, 200, 'nothing ended');

      const handle = /name="session" value="([0-9a-f]{32})"/.exec((await client.get('/settings')).body)?.[1];
      assert.ok(handle !== undefined);
      const endOne = await client.post('/settings/sessions/end', { session: handle });
      assertAsksToConfirm(endOne, '/settings/sessions/end');
      assert.match(endOne.body, new RegExp(`<input type="hidden" name="session" value="${handle}">`), 'the form’s field is carried over');
      const empty = await client.post('/settings/sessions/end', { session: handle, confirmPassword: '', confirmStep: '1' });
      assertAsksToConfirm(empty, '/settings/sessions/end', 401);
      assert.match(pageText(empty.body), /Type your password to continue/);

      const confirmed = await client.post('/settings/sessions/end', { session: handle, confirmPassword: TEST_PASSWORD, confirmStep: '1' });
      assert.equal(confirmed.statusCode, 303, pageText(confirmed.body));
      const stillSignedIn = [(await other.get('/settings')).statusCode, (await third.get('/settings')).statusCode].sort();
      assert.deepEqual(stillSignedIn, [200, 303], 'exactly the named session ended');
      const ended = await client.post('/settings/sessions/end-others', {}, {}, '/settings');
      assert.equal(ended.statusCode, 303, 'within the window of the confirmation: no second ask');
      assert.equal((await other.get('/settings')).statusCode, 303);
      assert.equal((await third.get('/settings')).statusCode, 303);

      const user = await portal.storage.users.findByEmail(email);
      assert.ok(user !== undefined);
      const { entries } = await portal.services.audit.list(user.accountId, { limit: 20 });
      const confirmation = entries.find((entry) => entry.action === 'authn_login_success' && entry.details.reauthentication === true);
      assert.deepEqual(confirmation?.details, { method: 'password', reauthentication: true });
    });

    test('when a team change comes more than 10 minutes after the sign-in, then it asks to confirm with the invitation’s fields carried over; confirmed, the invitation is sent', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client: owner } = await signUp(portal, { email: 'owner@example.com' });
      const fresh = await owner.post('/team/invitations', { email: 'first@example.com', role: 'developer' }, {}, '/team');
      assert.equal(fresh.statusCode, 303, 'within the window of the sign-in');
      portal.clock.advance(PAST_WINDOW_MS);

      const asked = await owner.post('/team/invitations', { email: 'later@example.com', role: 'viewer' }, {}, '/team');
      assertAsksToConfirm(asked, '/team/invitations');
      assert.match(asked.body, /<input type="hidden" name="email" value="later@example.com">/);
      assert.match(asked.body, /<input type="hidden" name="role" value="viewer">/);
      assert.doesNotMatch(pageText((await owner.get('/team')).body), /later@example\.com/, 'nothing was sent');
      const sent = await owner.post('/team/invitations', { email: 'later@example.com', role: 'viewer', confirmPassword: TEST_PASSWORD, confirmStep: '1' });
      assert.equal(sent.statusCode, 303, pageText(sent.body));
      assert.equal(sent.headers.location, '/team?done=invited');
      assert.match(pageText((await owner.get('/team')).body), /later@example\.com\s+Viewer/);

      portal.clock.advance(PAST_WINDOW_MS);
      const ownerId = String((await portal.storage.users.findByEmail("owner@example.com"))?.id);
      for (const url of [`/team/members/${ownerId}/role`, `/team/members/${ownerId}/remove`]) {
        assertAsksToConfirm(await owner.post(url, { role: 'developer' }, {}, '/team'), url);
      }
      const invitationId = /action="\/team\/invitations\/(\d+)\/revoke"/.exec((await owner.get('/team')).body)?.[1];
      assertAsksToConfirm(await owner.post(`/team/invitations/${invitationId}/revoke`, {}, {}, '/team'), `/team/invitations/${invitationId}/revoke`);
    });

    test('when the password typed to confirm is wrong, then the page says so with a 401, nothing changes, the failure is audited, and it counts against the sign-in throttle of the email', async (t) => {
      const portal = await createTestPortal(t, backend, { env: { PORTAL_THROTTLE_PER_EMAIL: '3' } });
      const { client, email } = await signUp(portal);
      const other = await signInAgain(portal, email);
      portal.clock.advance(PAST_WINDOW_MS);
      await seen(client, other);

      for (let attempt = 0; attempt < 3; attempt += 1) {
        const wrong = await client.post('/settings/sessions/end-others', { confirmPassword: 'not my password at all', confirmStep: '1' }, {}, '/settings');
        assertAsksToConfirm(wrong, '/settings/sessions/end-others', 401);
        assert.match(pageText(wrong.body), /That password is incorrect\./);
      }
      assert.equal((await other.get('/settings')).statusCode, 200, 'nothing ended');
      const throttled = await client.post('/settings/sessions/end-others', { confirmPassword: TEST_PASSWORD, confirmStep: '1' }, {}, '/settings');
      assert.equal(throttled.statusCode, 429, 'the email’s budget is spent: even the right password waits');
      assert.match(pageText(throttled.body), /Too many attempts\. Try again in \d+ minutes?\./);
      const signIn = await portal.client().post('/sign-in', { email, password: TEST_PASSWORD }, {}, '/sign-in');
      assert.equal(signIn.statusCode, 429, 'one budget with the sign-in form');
      assert.equal((await other.get('/settings')).statusCode, 200, 'still nothing ended');

      const user = await portal.storage.users.findByEmail(email);
      assert.ok(user !== undefined);
      const failures = (await portal.services.audit.list(user.accountId, { limit: 50 })).entries.filter((entry) => entry.action === 'authn_login_fail');
      assert.equal(failures.length, 3);
      assert.deepEqual(failures[0]?.details, { method: 'password', reauthentication: true });
    });

    test('when the current password of a password change or an email change is wrong, then it counts against the sign-in throttle; a right one restarts the window', async (t) => {
      const portal = await createTestPortal(t, backend, { env: { PORTAL_THROTTLE_PER_EMAIL: '2' } });
      const { client, email } = await signUp(portal);
      portal.clock.advance(PAST_WINDOW_MS);
      const wrongPassword = await client.post('/settings/password', { currentPassword: 'not my password at all', newPassword: 'a brand new passphrase' }, {}, '/settings');
      assert.equal(wrongPassword.statusCode, 400);
      assert.match(pageText(wrongPassword.body), /The current password is incorrect/);
      const wrongEmail = await client.post('/settings/email', { newEmail: 'new@example.com', emailPassword: 'not my password at all' }, {}, '/settings');
      assert.equal(wrongEmail.statusCode, 400);
      assert.equal((await client.post('/settings/password', { currentPassword: TEST_PASSWORD, newPassword: 'a brand new passphrase' }, {}, '/settings')).statusCode, 429);
      assert.equal((await portal.services.users.signIn({ email, password: TEST_PASSWORD })).ok, true, 'the password did not change');

      portal.clock.advance(16 * 60_000);
      const other = await signInAgain(portal, email);
      portal.clock.advance(PAST_WINDOW_MS);
      await seen(client, other);
      const changed = await client.post('/settings/email', { newEmail: 'new@example.com', emailPassword: TEST_PASSWORD }, {}, '/settings');
      assert.equal(changed.statusCode, 200, pageText(changed.body));
      assert.match(pageText(changed.body), /We have sent a link to new@example\.com/);
      assert.equal((await client.post('/settings/sessions/end-others', {}, {}, '/settings')).statusCode, 303, 'the password typed for the email change restarted the window');
      assert.equal((await other.get('/settings')).statusCode, 303);
    });
  });
}
