/** The passkey steps over real requests, on every backend: form protection, bad answers, one message for every failure. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createTestPortal, pageText, signUp, TEST_PASSWORD, type PortalClient, type TestPortal } from '../../support/portal.js';
import { parseExposition, total } from '../../metrics/scrape.js';
import { httpBackends } from '../../support/storage.js';

const FAILED = 'That passkey could not sign you in. Try again, or sign in with your email and password.';
const b64 = (text: string) => Buffer.from(text).toString('base64url');
/** Just past the re-authentication window (10 minutes), well within the idle timeout (30). */
const PAST_WINDOW_MS = 11 * 60_000;

function postJson(portal: TestPortal, client: PortalClient, url: string, body: unknown, { csrf = true, origin = client.origin }: { csrf?: boolean; origin?: string } = {}) {
  const cookie = [...client.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  return portal.app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json', origin, ...(cookie === '' ? {} : { cookie }), ...(csrf ? { 'csrf-token': client.csrfToken ?? '' } : {}) },
    payload: JSON.stringify(body),
  });
}

/** An authentication answer for `challenge` from a credential `credentialId` that signs nothing real. */
function fakeAnswer(challenge: string, credentialId: string) {
  const clientData = b64(JSON.stringify({ type: 'webauthn.get', challenge, origin: 'http://portal.test' }));
  return { id: credentialId, rawId: credentialId, type: 'public-key', clientExtensionResults: {}, response: { clientDataJSON: clientData, authenticatorData: b64('x'.repeat(37)), signature: b64('sig') } };
}

for (const backend of httpBackends()) {
  describe(`portal passkeys: ${backend.name}`, () => {
    test('when sign-in options are asked, then the RP ID is the hostname of PORTAL_PUBLIC_URL, user verification is required and the answer is not cached', async (t) => {
      const portal = await createTestPortal(t, backend);
      const client = portal.client();
      await client.get('/sign-in');
      const response = await postJson(portal, client, '/passkeys/sign-in/options', {});
      assert.equal(response.statusCode, 200);
      const options = response.json<{ rpId: string; challenge: string; userVerification: string }>();
      assert.equal(options.rpId, 'portal.test');
      assert.equal(options.userVerification, 'required');
      assert.match(options.challenge, /^[A-Za-z0-9_-]{43}$/);
      assert.equal(response.headers['cache-control'], 'no-store');
    });

    test('when an answer names an unknown passkey, a used challenge or a made-up one, then each gets the same 401 message and no session', async (t) => {
      const portal = await createTestPortal(t, backend);
      const client = portal.client();
      await client.get('/sign-in');
      const { challenge } = (await postJson(portal, client, '/passkeys/sign-in/options', {})).json<{ challenge: string }>();
      const answers = [fakeAnswer(challenge, 'unknown-credential'), fakeAnswer(challenge, 'unknown-credential'), fakeAnswer(b64('made up'), 'another')];
      for (const answer of answers) {
        const response = await postJson(portal, client, '/passkeys/sign-in', { response: answer, next: '/keys' });
        assert.equal(response.statusCode, 401);
        assert.deepEqual(response.json(), { message: FAILED });
        assert.equal(response.cookies.find((cookie) => cookie.name === 'so_session'), undefined);
      }
      const samples = parseExposition(await portal.registry.metrics());
      assert.equal(total(samples, 'store_portal_sign_ins_total', { method: 'passkey', result: 'failure' }), 3);
      assert.equal(total(samples, 'store_portal_sign_ins_total', { method: 'passkey', result: 'success' }), 0);
    });

    test('when a passkey step is forged (no token, another origin) or malformed, then 403 or 400, never a 500, and nothing is stored', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client, email } = await signUp(portal);
      await client.get('/settings');
      assert.equal((await postJson(portal, client, '/passkeys/register/options', {}, { csrf: false })).statusCode, 403);
      assert.equal((await postJson(portal, client, '/passkeys/register/options', {}, { origin: 'https://evil.example' })).statusCode, 403);
      assert.equal((await postJson(portal, client, '/passkeys/sign-in/options', {}, { csrf: false })).statusCode, 403);
      assert.equal((await postJson(portal, client, '/passkeys/register', { name: 'x', response: { id: 'not base64!' } })).statusCode, 400);
      const garbage = await portal.app.inject({
        method: 'POST',
        url: '/passkeys/sign-in',
        headers: { 'content-type': 'application/json', origin: client.origin, 'csrf-token': client.csrfToken ?? '', cookie: [...client.cookies].map(([n, v]) => `${n}=${v}`).join('; ') },
        payload: '{"__proto__": {"x": 1}, "response": ',
      });
      assert.equal(garbage.statusCode, 400);
      const { challenge } = (await postJson(portal, client, '/passkeys/register/options', {})).json<{ challenge: string }>();
      const bogus = { id: 'abc', rawId: 'abc', type: 'public-key', clientExtensionResults: {}, response: { clientDataJSON: b64(JSON.stringify({ type: 'webauthn.create', challenge, origin: client.origin })), attestationObject: b64('nothing') } };
      const refused = await postJson(portal, client, '/passkeys/register', { name: 'Laptop', response: bogus });
      assert.equal(refused.statusCode, 400);
      assert.deepEqual(refused.json(), { message: 'The passkey could not be verified. Try again.' });
      const user = await portal.storage.users.findByEmail(email);
      assert.deepEqual(await portal.services.passkeys.list(user?.id ?? 0), []);
    });

    test('when the sign-in is older than 10 minutes, then both registration steps answer 401 with where to confirm and store nothing; confirmed with the password, the options are given again', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client, email } = await signUp(portal);
      await client.get('/settings');
      const fresh = await postJson(portal, client, '/passkeys/register/options', {});
      assert.equal(fresh.statusCode, 200, 'within the window of the sign-up');
      const { challenge } = fresh.json<{ challenge: string }>();
      const answer = { id: 'abc', rawId: 'abc', type: 'public-key', clientExtensionResults: {}, response: { clientDataJSON: b64(JSON.stringify({ type: 'webauthn.create', challenge, origin: client.origin })), attestationObject: b64('nothing') } };
      portal.clock.advance(PAST_WINDOW_MS);

      for (const [url, body] of [['/passkeys/register/options', {}], ['/passkeys/register', { name: 'Laptop', response: answer }]] as const) {
        const refused = await postJson(portal, client, url, body);
        assert.equal(refused.statusCode, 401, url);
        assert.deepEqual(refused.json(), { message: 'Confirm it is you before adding a passkey.', confirm: '/settings/passkeys/confirm' }, url);
      }
      const asked = await client.post('/settings/passkeys/confirm', {}, {}, '/settings');
      assert.equal(asked.statusCode, 200);
      assert.match(pageText(asked.body), /Confirm it is you To add a passkey, confirm with your password\./);
      assert.match(asked.body, /<form method="post" action="\/settings\/passkeys\/confirm"/);
      const wrong = await client.post('/settings/passkeys/confirm', { confirmPassword: 'not my password at all', confirmStep: '1' });
      assert.equal(wrong.statusCode, 401);
      assert.equal((await postJson(portal, client, '/passkeys/register/options', {})).statusCode, 401, 'a wrong password confirms nothing');

      const confirmed = await client.post('/settings/passkeys/confirm', { confirmPassword: TEST_PASSWORD, confirmStep: '1' });
      assert.equal(confirmed.statusCode, 303, pageText(confirmed.body));
      assert.equal(confirmed.headers.location, '/settings?passkey=confirmed#passkeys-heading');
      assert.match(pageText((await client.get('/settings?passkey=confirmed')).body), /Thank you for confirming\. You can now register your passkey\./);
      assert.equal((await postJson(portal, client, '/passkeys/register/options', {})).statusCode, 200, 'the confirmation restarted the window');
      const user = await portal.storage.users.findByEmail(email);
      assert.deepEqual(await portal.services.passkeys.list(user?.id ?? 0), []);
    });

    test('when a signed-out browser asks to register a passkey, then it is sent to sign in', async (t) => {
      const portal = await createTestPortal(t, backend);
      const client = portal.client();
      await client.get('/sign-in');
      const response = await postJson(portal, client, '/passkeys/register/options', {});
      assert.equal(response.statusCode, 303);
      assert.equal(response.headers.location, '/sign-in');
    });
  });
}
