/** Sign-up, sign-in, invitations and resets over real requests, on every backend: messages, enumeration, throttling. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseExposition, total } from '../../metrics/scrape.js';
import { httpBackends } from '../../support/storage.js';
import { createTestPortal, pageText, signUp, TEST_PASSWORD, type PortalClient, type TestPortal } from '../../support/portal.js';

/** Signs in through the form and returns the signed-in client. */
async function signIn(portal: TestPortal, email: string, password: string): Promise<PortalClient> {
  const client = portal.client();
  const response = await client.post('/sign-in', { email, password }, {}, '/sign-in');
  assert.equal(response.statusCode, 303);
  return client;
}

for (const backend of httpBackends()) {
  describe(`portal sign-up and sign-in: ${backend.name}`, () => {
    test('when someone signs up, then a user and their account (the store) exist, they land on / signed in, and the page shows the account and the API', async (t) => {
      const portal = await createTestPortal(t, backend, { env: { STAGING_BASE_URL: 'https://staging.store.example.com/v1' } });
      const { client } = await signUp(portal, { email: ' Ann@Example.com ', storeName: 'Ann’s <Pets>' });
      const [user] = await portal.services.users.listUsers();
      assert.equal(user?.email, 'ann@example.com');
      const [account] = await portal.services.accounts.listAccounts();
      assert.equal(account?.name, 'Ann’s <Pets>');
      assert.equal(user.accountId, account.id);
      const home = await client.get('/');
      assert.equal(home.statusCode, 200);
      const text = pageText(home.body);
      assert.match(home.body, /Ann’s &lt;Pets&gt;/, 'the store name is escaped');
      assert.match(text, new RegExp(`Account ID ${account.id}`));
      assert.match(text, /http:\/\/127\.0\.0\.1:3000\/v1/);
      assert.match(text, /https:\/\/staging\.store\.example\.com\/v1/);
      assert.match(text, /curl -H "Authorization: Bearer YOUR_API_KEY" http:\/\/127\.0\.0\.1:3000\/v1\/store\/orders/);
      assert.match(home.body, /<button type="submit" class="button secondary">Sign out<\/button>/);
    });

    test('when the sign-up form is wrong, then it says what to fix and creates nothing; passwords of 12 to 128 characters of any kind are accepted', async (t) => {
      const portal = await createTestPortal(t, backend);
      const cases: [Record<string, string>, RegExp][] = [
        [{ email: 'not-an-email', password: TEST_PASSWORD, storeName: 'S' }, /Enter an email address/],
        [{ email: 'a\u001b[31m@example.com', password: TEST_PASSWORD, storeName: 'S' }, /An email address cannot contain control characters/],
        [{ email: 'a@example.com\u0085', password: TEST_PASSWORD, storeName: 'S' }, /An email address cannot contain control characters/],
        [{ email: 'a@example.com', password: 'short pass', storeName: 'S' }, /at least 12 characters/],
        [{ email: 'a@example.com', password: 'x'.repeat(129), storeName: 'S' }, /at most 128 characters/],
        [{ email: 'a@example.com', password: 'Qwerty123456', storeName: 'S' }, /one of the 10,000 most common passwords/],
        [{ email: 'ann.longname@example.com', password: 'Ann.Longname@example.com', storeName: 'S' }, /cannot be your email address/],
        [{ email: 'ann.longname@example.com', password: 'ANN.LONGNAME', storeName: 'S' }, /cannot be your email address/],
        [{ email: 'a@example.com', password: 'Main Street Pets', storeName: 'Main Street Pets' }, /cannot be your store name/],
        [{ email: 'a@example.com', password: TEST_PASSWORD, storeName: '  ' }, /Store name must be 1 to 200 characters/],
        [{ email: 'a@example.com', password: TEST_PASSWORD, storeName: 'Pets\u001b]0;owned\u0007' }, /Store name must not contain control characters/],
      ];
      for (const [fields, message] of cases) {
        const response = await portal.client().post('/sign-up', fields, {}, '/sign-up');
        assert.equal(response.statusCode, 400, JSON.stringify(fields));
        assert.match(pageText(response.body), message);
      }
      assert.equal((await portal.services.users.listUsers()).length, 0);
      assert.equal((await portal.services.accounts.listAccounts()).length, 0);
      for (const [i, password] of ['aaaaaaaaaaaa', 'x'.repeat(128), '🐶'.repeat(128), 'пароль пароль 🐶'].entries()) {
        const accepted = await portal.client().post('/sign-up', { email: `accepted-${i}@example.com`, password, storeName: 'S' }, {}, '/sign-up');
        assert.equal(accepted.statusCode, 200, password);
        assert.match(pageText(accepted.body), /Check your email to continue/);
      }
      assert.equal((await portal.services.mail.list({ limit: 10 })).filter((mail) => mail.kind === 'sign-up-confirmation').length, 4, 'each one mailed its link');
    });

    test('when an invited user or a reset picks a common password, their email or the store\u2019s name, then it is refused with the reason', async (t) => {
      const portal = await createTestPortal(t, backend);
      const account = await portal.services.accounts.createAccount({ name: 'Harbour Pets' });
      const { token } = await portal.services.team.inviteByOperator(account.id, 'owner');
      const invited = await portal.client().post('/sign-up', { email: 'b@example.com', password: 'harbour pets', invite: token }, {}, `/sign-up?invite=${token}`);
      assert.equal(invited.statusCode, 400);
      assert.match(pageText(invited.body), /cannot be your store name/, 'the store an invitation joins counts');
      assert.equal((await portal.services.users.listUsers()).length, 0);
      assert.ok(await portal.services.team.peek(token), 'the invitation is still usable');

      const { email } = await signUp(portal, { email: 'owner@example.com', storeName: 'Main Street Pets' });
      const reset = await portal.services.users.createPasswordReset(email);
      for (const [password, message] of [
        ['qwerty123456', /one of the 10,000 most common passwords/],
        ['OWNER@example.com', /cannot be your email address/],
        ['mainstreetpets', /cannot be your store name/],
      ] as const) {
        const refused = await portal.client().post('/reset-password', { token: reset?.token ?? '', password }, {}, `/reset-password?token=${reset?.token ?? ''}`);
        assert.equal(refused.statusCode, 400);
        assert.match(pageText(refused.body), message);
        assert.match(refused.body, /name="token" value="[^"]+"/, 'the form stays usable');
      }
      assert.notEqual(await portal.services.users.peekReset(reset?.token ?? ''), undefined, 'a refused password does not use the link');
    });

    test('when sign-in fails for an unknown email, a wrong password or a disabled user, then the page and status are the same', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { email } = await signUp(portal);
      const { email: disabled } = await signUp(portal);
      await portal.services.users.disableUser(disabled);
      const pages: string[] = [];
      for (const [address, password] of [
        ['nobody@example.com', TEST_PASSWORD],
        [email, 'wrong password here'],
        [disabled, TEST_PASSWORD],
      ] as const) {
        const response = await portal.client().post('/sign-in', { email: address, password }, {}, '/sign-in');
        assert.equal(response.statusCode, 401);
        assert.equal(response.cookies.filter((c) => c.name === 'so_session').length, 0);
        const text = pageText(response.body).replace(address, '<email>');
        assert.match(text, /Email or password is incorrect\./);
        pages.push(text);
      }
      assert.equal(new Set(pages).size, 1, 'the three pages read the same');
    });

    test('when one email fails to sign in 5 times, then it is throttled with a "try again in N minutes" page, even with the right password, until the window ends', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { email } = await signUp(portal);
      for (let i = 0; i < 5; i += 1) {
        assert.equal((await portal.client().post('/sign-in', { email, password: 'wrong password here' }, {}, '/sign-in')).statusCode, 401);
      }
      const throttled = await portal.client().post('/sign-in', { email, password: TEST_PASSWORD }, {}, '/sign-in');
      assert.equal(throttled.statusCode, 429);
      assert.equal(throttled.headers['retry-after'], '900');
      assert.match(pageText(throttled.body), /Too many attempts\. Try again in 15 minutes\./);
      assert.match(String(throttled.headers['content-type']), /^text\/html/);
      const unknown = await portal.client().post('/sign-in', { email: 'nobody@example.com', password: 'x' }, {}, '/sign-in');
      assert.equal(unknown.statusCode, 401, 'other emails are not throttled by this one');
      portal.clock.advance(14 * 60_000);
      assert.match(pageText((await portal.client().post('/sign-in', { email, password: TEST_PASSWORD }, {}, '/sign-in')).body), /Try again in 1 minute\./);
      portal.clock.advance(60_000);
      assert.equal((await portal.client().post('/sign-in', { email, password: TEST_PASSWORD }, {}, '/sign-in')).statusCode, 303);

      // Each attempt is counted by its result: 6 wrong (5 and the unknown email), 2 refused by the throttle, 1 right.
      const samples = parseExposition(await portal.registry.metrics());
      const signIns = (result: string) => total(samples, 'store_portal_sign_ins_total', { method: 'password', result });
      assert.deepEqual([signIns('failure'), signIns('throttled'), signIns('success')], [6, 2, 1]);
      assert.equal(total(samples, 'store_portal_sign_ins_total', { method: 'passkey' }), 0);
      assert.equal(samples.filter((s) => s.name === 'store_portal_sign_ins_total').length, 6, 'every method and result is exported from the start');
    });

    test('when one client address makes too many failed attempts across emails, then it is throttled too', async (t) => {
      const portal = await createTestPortal(t, backend, { env: { PORTAL_THROTTLE_PER_ADDRESS: '4' } });
      for (let i = 0; i < 4; i += 1) {
        await portal.client().post('/sign-in', { email: `nobody${i}@example.com`, password: 'x' }, {}, '/sign-in');
      }
      const throttled = await portal.client().post('/sign-in', { email: 'someone-else@example.com', password: 'x' }, {}, '/sign-in');
      assert.equal(throttled.statusCode, 429);
      const signUpThrottled = await portal.client().post('/sign-up', { email: 'new@example.com', password: TEST_PASSWORD, storeName: 'S' }, {}, '/sign-up');
      assert.equal(signUpThrottled.statusCode, 429);
      assert.equal((await portal.services.users.listUsers()).length, 0);
    });

    test('when sign-up is closed, then /sign-up refuses without an invitation, and an operator\u2019s invitation joins its account once', async (t) => {
      const portal = await createTestPortal(t, backend, { env: { PORTAL_SIGNUP: 'closed' } });
      const page = await portal.client().get('/sign-up');
      assert.match(pageText(page.body), /Sign-up is by invitation only/);
      const refused = await portal.client().post('/sign-up', { email: 'a@example.com', password: TEST_PASSWORD, storeName: 'S' }, {}, '/sign-in');
      assert.equal(refused.statusCode, 400);
      assert.equal((await portal.services.users.listUsers()).length, 0);

      const account = await portal.services.accounts.createAccount({ name: 'Harbour Pets' });
      const { token } = await portal.services.team.inviteByOperator(account.id, 'owner');
      const invited = portal.client();
      const form = await invited.get(`/sign-up?invite=${token}`);
      assert.match(pageText(form.body), /You are invited to join Harbour Pets as owner\./);
      const joined = await invited.post('/sign-up', { email: 'b@example.com', password: TEST_PASSWORD, invite: token });
      assert.equal(joined.statusCode, 303);
      assert.equal((await portal.services.users.listUsers())[0]?.accountId, account.id);
      assert.equal((await portal.services.accounts.listAccounts()).length, 1, 'no new account');
      const reused = await portal.client().post('/sign-up', { email: 'c@example.com', password: TEST_PASSWORD, invite: token }, {}, '/sign-in');
      assert.equal(reused.statusCode, 400);
      assert.match(pageText(reused.body), /not valid any more/);
      portal.clock.advance(7 * 24 * 3_600_000);
      const { token: late } = await portal.services.team.inviteByOperator(account.id, 'owner');
      portal.clock.advance(7 * 24 * 3_600_000);
      assert.match(pageText((await portal.client().get(`/sign-up?invite=${late}`)).body), /not valid any more/, 'an invitation expires after 7 days');
    });

    test('when an operator\u2019s reset link is used, then the password changes once, every session ends, and the link is dead after use or after 1 hour', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client, email } = await signUp(portal);
      const reset = await portal.services.users.createPasswordReset(email);
      assert.ok(reset !== undefined);
      const visitor = portal.client();
      assert.equal((await visitor.get(`/reset-password?token=${reset.token}`)).statusCode, 200);
      const short = await visitor.post('/reset-password', { token: reset.token, password: 'short' });
      assert.equal(short.statusCode, 400);
      const done = await visitor.post('/reset-password', { token: reset.token, password: 'a fresh new passphrase' });
      assert.equal(done.statusCode, 303);
      assert.equal(done.headers.location, '/sign-in?reset=1');
      const user = await portal.storage.users.findByEmail(email);
      assert.ok(user !== undefined);
      const { entries } = await portal.services.audit.list(user.accountId, {});
      const change = entries.find((entry) => entry.action === 'authn_password_change');
      assert.deepEqual([change?.actor, change?.details], [{ kind: 'user', id: user.id }, { reason: 'reset' }], 'the reset is in the audit trail, as the user');
      assert.equal((await client.get('/')).statusCode, 303, 'the old session ended');
      assert.equal((await portal.client().post('/sign-in', { email, password: 'a fresh new passphrase' }, {}, '/sign-in')).statusCode, 303);
      assert.equal((await portal.client().get(`/reset-password?token=${reset.token}`)).statusCode, 400, 'used once');
      const expiring = await portal.services.users.createPasswordReset(email);
      portal.clock.advance(3_600_000);
      assert.equal((await portal.client().get(`/reset-password?token=${expiring?.token ?? ''}`)).statusCode, 400, 'expired after 1 hour');
    });

    test('when a newer reset link is used, or the password is changed on /settings, then every older outstanding reset link of that user is dead', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client, email } = await signUp(portal);
      const older = await portal.services.users.createPasswordReset(email);
      const newer = await portal.services.users.createPasswordReset(email);
      assert.ok(older !== undefined && newer !== undefined);
      assert.equal((await portal.client().post('/reset-password', { token: newer.token, password: 'the newer passphrase' }, {}, `/reset-password?token=${newer.token}`)).statusCode, 303);
      assert.equal((await portal.client().get(`/reset-password?token=${older.token}`)).statusCode, 400, 'the older link no longer opens');
      const late = await portal.client().post('/reset-password', { token: older.token, password: 'the older passphrase' }, {}, '/sign-in');
      assert.equal(late.statusCode, 400);
      assert.match(pageText(late.body), /not valid any more/);
      assert.equal((await portal.client().post('/sign-in', { email, password: 'the newer passphrase' }, {}, '/sign-in')).statusCode, 303, 'the newer password stands');

      const signedIn = await signIn(portal, email, 'the newer passphrase');
      const pending = await portal.services.users.createPasswordReset(email);
      const common = await signedIn.post('/settings/password', { currentPassword: 'the newer passphrase', newPassword: '1q2w3e4r5t6y' }, {}, '/settings');
      assert.equal(common.statusCode, 400);
      assert.match(pageText(common.body), /one of the 10,000 most common passwords/);
      assert.notEqual(await portal.services.users.peekReset(pending?.token ?? ''), undefined, 'a refused change changes nothing');
      const changed = await signedIn.post('/settings/password', { currentPassword: 'the newer passphrase', newPassword: 'changed on settings' }, {}, '/settings');
      assert.equal(changed.statusCode, 200);
      assert.equal((await portal.client().get(`/reset-password?token=${pending?.token ?? ''}`)).statusCode, 400, 'a password change kills the outstanding link');
      assert.equal((await client.get('/')).statusCode, 303);
    });
  });
}
