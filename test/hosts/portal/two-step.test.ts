/**
 * Two-step sign-in over real requests (issue 27, OWASP ASVS 5.0 6.3.3,
 * 6.5.x): set-up with an authenticator app's first code, the sign-in's
 * second step, codes used once, recovery codes, the pending sign-in's
 * expiry, the throttle, a reset that needs the code, turning it off, and
 * the secret sealed at rest. Codes are computed as an authenticator app
 * does (the `otpauth` library, RFC 6238) from the key the set-up page shows,
 * at the services' clock.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readSql } from '../../support/raw-sql.js';
import { httpBackends } from '../../support/storage.js';
import { codeAt, turnOn } from '../../support/two-step.js';
import { accountOf, createTestPortal, pageText, signUp, TEST_PASSWORD, type PortalClient, type TestPortal } from '../../support/portal.js';

/** Signs in with the password on a new client: the answer (a redirect to the second step when two-step sign-in is on). */
async function passwordStep(portal: TestPortal, email: string): Promise<{ client: PortalClient; location: string | undefined }> {
  const client = portal.client();
  const answer = await client.post('/sign-in', { email, password: TEST_PASSWORD }, {}, '/sign-in');
  assert.equal(answer.statusCode, 303);
  return { client, location: answer.headers.location as string | undefined };
}

/** "Forgot password?" for `email`: the token of the link the mail carries. */
async function mailedResetToken(portal: TestPortal, email: string, origin: string): Promise<string> {
  await portal.services.users.requestPasswordReset({ email, origin });
  const texts = await Promise.all((await portal.services.mail.list({ recipient: email, limit: 20 })).map(async (mail) => (await portal.services.mail.show(mail.id))?.body.text ?? ''));
  return texts.map((text) => /reset-password\?token=([A-Za-z0-9_-]+)/.exec(text)?.[1]).find((found) => found !== undefined) ?? '';
}

for (const backend of httpBackends()) {
  describe(`two-step sign-in: ${backend.name}`, () => {
    test('when a user sets up an authenticator app, then a wrong first code is refused, the right one turns it on and shows ten recovery codes once, and the audit trail records it', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client } = await signUp(portal);
      const setUp = await client.post('/settings/two-step/set-up', {}, {}, '/settings');
      assert.equal(setUp.headers['cache-control'], 'no-store');
      const wrong = await client.post('/settings/two-step/confirm', { code: '000000' });
      assert.equal(wrong.statusCode, 400);
      assert.match(pageText(wrong.body), /That code is not right/);
      assert.match(wrong.body, /<svg/, 'the same set-up page again');
      assert.match(pageText((await client.get('/settings')).body), /Set up two-step sign-in/, 'still off');

      const { recoveryCodes } = await turnOn(portal, client);
      assert.equal(recoveryCodes.length, 10);
      assert.equal(new Set(recoveryCodes).size, 10);
      for (const code of recoveryCodes) assert.match(code, /^([0-9a-hjkmnp-tv-z]{4}-){5}[0-9a-hjkmnp-tv-z]{4}$/, '24 characters of Crockford base 32: 120 bits');
      const settings = pageText((await client.get('/settings')).body);
      assert.match(settings, /Two-step sign-in On/);
      assert.match(settings, /10 of 10 recovery codes left/);
      assert.ok(!(await client.get('/settings')).body.includes(recoveryCodes[0] ?? ''), 'the codes are not shown again');
      assert.match(pageText((await client.get('/audit')).body), /Two-step sign-in turned on/);
    });

    test('when a user with two-step sign-in types the password, then no session starts until a code of the app, and a code is accepted once', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client: owner, email } = await signUp(portal);
      const { key } = await turnOn(portal, owner);
      portal.clock.advance(30_000);

      const { client, location } = await passwordStep(portal, email);
      assert.equal(location, '/sign-in/two-step');
      assert.equal(client.sessionCookie(), undefined, 'no session after the password alone');
      assert.equal((await client.get('/keys')).statusCode, 303, 'signed out until the code');
      assert.match(pageText((await client.get('/sign-in/two-step')).body), /type the 6-digit code/);
      const wrong = await client.post('/sign-in/two-step', { code: '123456' });
      assert.equal(wrong.statusCode, 401);
      assert.equal(client.sessionCookie(), undefined);
      const code = codeAt(portal, key);
      const right = await client.post('/sign-in/two-step', { code });
      assert.equal(right.statusCode, 303, pageText(right.body));
      assert.equal(right.headers.location, '/');
      assert.equal((await client.get('/keys')).statusCode, 200);

      const again = await passwordStep(portal, email);
      const replayed = await again.client.post('/sign-in/two-step', { code }, {}, '/sign-in/two-step');
      assert.equal(replayed.statusCode, 401, 'the same code does not sign in twice');
      portal.clock.advance(30_000);
      assert.equal((await again.client.post('/sign-in/two-step', { code: codeAt(portal, key) })).statusCode, 303, "the next step's code does");
    });

    test('when a recovery code is typed instead of a code, then it signs in once, Settings says so and counts one fewer, and it never works again', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client: owner, email } = await signUp(portal);
      const { recoveryCodes } = await turnOn(portal, owner);
      const [first = ''] = recoveryCodes;
      const { client } = await passwordStep(portal, email);
      const used = await client.post('/sign-in/two-step', { code: ` ${first.toUpperCase().replace(/-/g, ' ')} ` }, {}, '/sign-in/two-step');
      assert.equal(used.statusCode, 303, pageText(used.body));
      assert.equal(used.headers.location, '/settings?two-step=recovery-code-used#two-step-heading');
      const settings = pageText((await client.get('/settings?two-step=recovery-code-used')).body);
      assert.match(settings, /You signed in with a recovery code/);
      assert.match(settings, /9 of 10 recovery codes left/);
      const again = await passwordStep(portal, email);
      assert.equal((await again.client.post('/sign-in/two-step', { code: first }, {}, '/sign-in/two-step')).statusCode, 401);
    });

    test('when the code step waits over 5 minutes, or a browser without the password step asks for it, then it is sent back to sign in', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client: owner, email } = await signUp(portal);
      const { key } = await turnOn(portal, owner);
      const { client } = await passwordStep(portal, email);
      await client.get('/sign-in/two-step');
      portal.clock.advance(5 * 60_000 + 1000);
      const late = await client.post('/sign-in/two-step', { code: codeAt(portal, key) });
      assert.equal(late.statusCode, 303);
      assert.equal(late.headers.location, '/sign-in');
      assert.equal(client.sessionCookie(), undefined);
      const stranger = portal.client();
      assert.equal((await stranger.get('/sign-in/two-step')).headers.location, '/sign-in');
      stranger.cookies.set('so_two_step', 'A'.repeat(43));
      assert.equal((await stranger.get('/sign-in/two-step')).headers.location, '/sign-in', 'a made-up token is no pending sign-in');
    });

    test('when wrong codes are typed again and again, then the sign-in throttle counts them with the password step and refuses the code step too, the right code included', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client: owner, email } = await signUp(portal);
      const { key } = await turnOn(portal, owner);
      const { client } = await passwordStep(portal, email);
      await client.get('/sign-in/two-step');
      const statuses: number[] = [];
      for (let attempt = 0; attempt < 5; attempt++) statuses.push((await client.post('/sign-in/two-step', { code: String(100000 + attempt) })).statusCode);
      statuses.push((await client.post('/sign-in/two-step', { code: codeAt(portal, key) })).statusCode);
      // The password step was the email's first attempt of its 5: four wrong codes, then nothing more gets through.
      assert.deepEqual(statuses, [401, 401, 401, 401, 429, 429]);
      assert.equal(client.sessionCookie(), undefined);
    });

    test("when a user with two-step sign-in follows a reset link they asked for, then it needs a code too (the link stays usable after a wrong one); an operator's link does not", async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client: owner, email } = await signUp(portal);
      const { key } = await turnOn(portal, owner);
      const token = await mailedResetToken(portal, email, owner.origin);
      const visitor = portal.client();
      assert.match(pageText((await visitor.get(`/reset-password?token=${token}`)).body), /Code from your authenticator app/);
      const password = 'a brand new passphrase 2026';
      const withoutCode = await visitor.post('/reset-password', { token, password });
      assert.equal(withoutCode.statusCode, 400);
      assert.match(pageText(withoutCode.body), /Type the code your authenticator app shows now/);
      portal.clock.advance(30_000);
      const withCode = await visitor.post('/reset-password', { token, password, code: codeAt(portal, key) });
      assert.equal(withCode.statusCode, 303, pageText(withCode.body));

      const operator = await portal.services.users.createPasswordReset(email);
      assert.ok(operator !== undefined);
      const page = pageText((await visitor.get(`/reset-password?token=${operator.token}`)).body);
      assert.doesNotMatch(page, /authenticator app/, "an operator's reset asks for no code");
      assert.equal((await visitor.post('/reset-password', { token: operator.token, password: 'yet another passphrase 2026' })).statusCode, 303);
    });

    test('when a user turns two-step sign-in off, then the password alone signs in again, and the app secret is gone from the database', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client: owner, email } = await signUp(portal);
      const { key } = await turnOn(portal, owner);
      const stored = JSON.stringify(await readSql(portal.database, 'SELECT * FROM user_authenticators'));
      assert.ok(!stored.includes(key) && !stored.includes(key.toLowerCase()), 'the key is sealed at rest');
      assert.match(stored, /v1\./);
      const off = await owner.post('/settings/two-step/off', {}, {}, '/settings');
      assert.equal(off.statusCode, 303);
      assert.match(pageText((await owner.get(off.headers.location as string)).body), /Two-step sign-in is off/);
      assert.deepEqual(await readSql(portal.database, 'SELECT * FROM user_authenticators'), []);
      assert.equal((await passwordStep(portal, email)).location, '/');
      assert.match(pageText((await owner.get('/audit')).body), /Two-step sign-in turned off/);
    });

    test('when PORTAL_REQUIRE_TWO_STEP=true, then a user without it reaches only Settings to set it up (other pages redirect there, forms are refused in words), and everything once it is on', async (t) => {
      const portal = await createTestPortal(t, backend, { env: { PORTAL_REQUIRE_TWO_STEP: 'true' } });
      const { client, email } = await signUp(portal);
      const keys = await client.get('/keys');
      assert.equal(keys.statusCode, 303);
      assert.equal(keys.headers.location, '/settings?two-step=required#two-step-heading');
      assert.match(pageText((await client.get('/settings?two-step=required')).body), /This portal requires two-step sign-in/);
      const refused = await client.post('/keys', { name: 'till', scope: 'orders:read', expiresIn: 'never' }, {}, '/settings');
      assert.equal(refused.statusCode, 403);
      assert.match(pageText(refused.body), /requires two-step sign-in: set it up in Settings first/);
      const accountId = await accountOf(portal, email);
      assert.deepEqual(await portal.services.apiKeys.listKeys(accountId), [], 'no key made');
      await turnOn(portal, client);
      assert.equal((await client.get('/keys')).statusCode, 200);
      assert.equal((await client.post('/keys', { name: 'till', scope: 'orders:read', expiresIn: 'never' })).statusCode, 201);
      assert.deepEqual((await portal.services.apiKeys.listKeys(accountId)).map((key) => key.name), ['till']);
    });

    test("when wrong codes are typed on a reset link, then they count against the user's email as at sign-in; a passkey holder's link asks for the passkey, not a code", async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client: owner, email } = await signUp(portal);
      const { key } = await turnOn(portal, owner);
      const token = await mailedResetToken(portal, email, owner.origin);
      const visitor = portal.client();
      await visitor.get(`/reset-password?token=${token}`);
      const statuses: number[] = [];
      for (let attempt = 0; attempt < 5; attempt++) statuses.push((await visitor.post('/reset-password', { token, password: 'a brand new passphrase 2026', code: String(200000 + attempt) })).statusCode);
      statuses.push((await visitor.post('/reset-password', { token, password: 'a brand new passphrase 2026', code: codeAt(portal, key) })).statusCode);
      assert.deepEqual(statuses, [400, 400, 400, 400, 400, 429]);
      const signIn = await portal.client().post('/sign-in', { email, password: TEST_PASSWORD }, {}, '/sign-in');
      assert.equal(signIn.statusCode, 429, "the same email's budget as the sign-in form");

      const user = await portal.storage.users.findByEmail(email);
      assert.ok(user !== undefined);
      await portal.storage.passkeys.create({ userId: user.id, credentialId: 'cred-1', publicKey: 'pk', signCount: 0, transports: ['internal'], name: 'Laptop', createdAt: new Date().toISOString() });
      portal.clock.advance(16 * 60_000);
      const page = pageText((await visitor.get(`/reset-password?token=${token}`)).body);
      assert.match(page, /Your account has a passkey/);
      assert.doesNotMatch(page, /Code from your authenticator app/);
      portal.clock.advance(30_000);
      const byCode = await visitor.post('/reset-password', { token, password: 'a brand new passphrase 2026', code: codeAt(portal, key) });
      assert.equal(byCode.statusCode, 400, 'a code does not stand in for the passkey');
      assert.match(pageText(byCode.body), /Confirm the reset with one of your passkeys/);
    });

    test('when the password is reset while a sign-in waits for its code, then that sign-in cannot finish', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client: owner, email } = await signUp(portal);
      const { key } = await turnOn(portal, owner);
      const { client } = await passwordStep(portal, email);
      const operator = await portal.services.users.createPasswordReset(email);
      assert.ok(operator !== undefined);
      assert.equal((await portal.client().post('/reset-password', { token: operator.token, password: 'a brand new passphrase 2026' }, {}, `/reset-password?token=${operator.token}`)).statusCode, 303);
      portal.clock.advance(30_000);
      const late = await client.post('/sign-in/two-step', { code: codeAt(portal, key) }, {}, '/sign-in');
      assert.equal(late.statusCode, 303);
      assert.equal(late.headers.location, '/sign-in', 'the pending sign-in ended with the old password');
      assert.equal(client.sessionCookie(), undefined);
    });

    test('when two-step sign-in is turned on or off while another browser is signed in, then Settings offers to end the other sessions, once, in the two-step section', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client, email } = await signUp(portal);
      assert.equal((await passwordStep(portal, email)).location, '/', 'a second browser signed in');
      await turnOn(portal, client);
      const on = await client.get('/settings?two-step=on');
      assert.match(pageText(on.body), /Two-step sign-in is on\. You are still signed in in one other browser/);
      assert.equal([...on.body.matchAll(/End the other sessions/g)].length, 1);
      const off = await client.post('/settings/two-step/off', {}, {}, '/settings');
      const after = await client.get(off.headers.location as string);
      assert.match(pageText(after.body), /Two-step sign-in is off\. .*You are still signed in in one other browser/);
      assert.doesNotMatch(pageText((await client.get('/settings')).body), /End the other sessions/, 'not offered on a plain visit');
    });
  });
}
