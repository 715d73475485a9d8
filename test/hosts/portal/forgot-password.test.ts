/**
 * Issue 27, "Forgot password?": the request page answers every address the
 * same way, in the same time; the mailed link (queued with its token in one
 * transaction) works once, for an hour, ends every session, and asks for the
 * user's passkey when they asked for the link themself and have one.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readSql } from '../../support/raw-sql.js';
import { httpBackends } from '../../support/storage.js';
import { createTestPortal, pageText, signUp, type PortalClient, type TestPortal } from '../../support/portal.js';

const NEW_PASSWORD = 'a brand new passphrase';
const UNLIMITED = { PORTAL_THROTTLE_PER_EMAIL: '100000', PORTAL_THROTTLE_PER_ADDRESS: '100000' };

/** The page without its per-request CSRF token: what a visitor could compare. */
const withoutCsrf = (html: string) => html.replace(/name="_csrf" value="[^"]*"/g, '');

async function requestReset(client: PortalClient, email: string) {
  return client.post('/forgot-password', { email }, {}, '/forgot-password');
}

/** The link of the newest reset mail to `email` (opened as the operator's `mail show` does), or undefined. */
async function mailedLink(portal: TestPortal, email: string): Promise<string | undefined> {
  // Sign-up also mails a verification link to the address: the reset mail is the newest of its kind.
  const [newest] = (await portal.services.mail.list({ recipient: email, limit: 10 })).filter((mail) => mail.kind === 'password-reset');
  if (newest === undefined) return undefined;
  const shown = await portal.services.mail.show(newest.id);
  return /(http\S+\/reset-password\?token=[A-Za-z0-9_-]+)/.exec(shown?.body.text ?? '')?.[1];
}

const tokenOf = (link: string | undefined) => new URL(link ?? 'http://x/').searchParams.get('token') ?? '';

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

for (const backend of httpBackends()) {
  describe(`portal forgot password: ${backend.name}`, () => {
    test('when an existing and an unknown address ask for a reset, then both get the same page and only the existing one gets a mail, whose token is stored only as a hash', async (t) => {
      const database = await backend.freshDatabase(t);
      const portal = await createTestPortal(t, backend, { over: { storage: database.storage, database: database.config } });
      const { email } = await signUp(portal);
      const client = portal.client();
      const known = await requestReset(client, email);
      const unknown = await requestReset(client, 'nobody@example.com');
      assert.equal(known.statusCode, 200);
      assert.equal(unknown.statusCode, 200);
      assert.equal(withoutCsrf(known.body), withoutCsrf(unknown.body), 'the same page for both');
      assert.match(pageText(known.body), /If an account uses that address, we have sent it a link/);
      assert.equal(known.body.includes(email), false, 'the address is not echoed');
      assert.deepEqual(await portal.services.mail.list({ recipient: 'nobody@example.com', limit: 10 }), []);
      const link = await mailedLink(portal, email);
      assert.match(link ?? '', /^http:\/\/portal\.test\/reset-password\?token=/);
      const token = tokenOf(link);
      const stored = JSON.stringify([await readSql(database.config, 'SELECT * FROM user_tokens'), await readSql(database.config, 'SELECT * FROM mail')]);
      assert.equal(stored.includes(token), false, 'the token is in no table in clear');
      assert.equal(portal.logs.join('\n').includes(token), false, 'nor in the logs');
    });

    test('when the mailed link is used, then the password changes, every session ends, and the link works only once', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client: signedIn, email } = await signUp(portal);
      await requestReset(portal.client(), email);
      const token = tokenOf(await mailedLink(portal, email));
      const visitor = portal.client();
      assert.equal((await visitor.get(`/reset-password?token=${token}`)).statusCode, 200);
      const done = await visitor.post('/reset-password', { token, password: NEW_PASSWORD });
      assert.equal(done.statusCode, 303);
      assert.equal(done.headers.location, '/sign-in?reset=1');
      assert.equal((await signedIn.get('/settings')).statusCode, 303, 'the session signed in before the reset has ended');
      const again = await portal.client().post('/reset-password', { token, password: 'yet another passphrase' }, {}, '/sign-in');
      assert.equal(again.statusCode, 400);
      assert.match(pageText(again.body), /not valid any more/);
      const signIn = await portal.client().post('/sign-in', { email, password: NEW_PASSWORD }, {}, '/sign-in');
      assert.equal(signIn.statusCode, 303, 'the new password signs in');
    });

    test('when the mailed link is an hour old, then it is refused', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { email } = await signUp(portal);
      await requestReset(portal.client(), email);
      const token = tokenOf(await mailedLink(portal, email));
      portal.clock.advance(3_600_000 - 1000);
      assert.equal((await portal.client().get(`/reset-password?token=${token}`)).statusCode, 200, 'valid just before the hour');
      portal.clock.advance(1000);
      const late = await portal.client().get(`/reset-password?token=${token}`);
      assert.equal(late.statusCode, 400);
      assert.match(pageText(late.body), /not valid any more/);
    });

    test('when the user has a passkey, then a link they asked for needs it (the password is kept until it is given) and an operator\u2019s link does not', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { email, password } = await signUp(portal);
      const [user] = await portal.services.users.listUsers();
      if (user === undefined) throw new Error('no user');
      await portal.storage.passkeys.create({ userId: user.id, credentialId: 'cred-1', publicKey: 'cGs', signCount: 0, transports: ['internal'], name: 'Laptop', createdAt: new Date().toISOString() });
      await requestReset(portal.client(), email);
      const token = tokenOf(await mailedLink(portal, email));
      const visitor = portal.client();
      assert.match(pageText((await visitor.get(`/reset-password?token=${token}`)).body), /Your account has a passkey/);
      for (const passkey of [undefined, 'not json', JSON.stringify({ id: 'cred-1' })]) {
        const refused = await visitor.post('/reset-password', { token, password: NEW_PASSWORD, ...(passkey === undefined ? {} : { passkey }) });
        assert.equal(refused.statusCode, 400);
        assert.match(pageText(refused.body), /Confirm the reset with one of your passkeys/);
      }
      assert.notEqual(await portal.services.users.peekReset(token), undefined, 'the link is still usable');
      assert.equal((await portal.client().post('/sign-in', { email, password }, {}, '/sign-in')).statusCode, 303, 'the old password still works');

      const operator = await portal.services.users.createPasswordReset(email);
      const operatorPage = await visitor.get(`/reset-password?token=${operator?.token ?? ''}`);
      assert.doesNotMatch(pageText(operatorPage.body), /Your account has a passkey/);
      assert.equal((await visitor.post('/reset-password', { token: operator?.token ?? '', password: NEW_PASSWORD })).statusCode, 303);
      assert.equal((await portal.storage.passkeys.listByUser(user.id)).length, 1, 'a reset never removes a passkey');
    });

    test('when one email asks for resets past its budget, then it gets the throttle page', async (t) => {
      const portal = await createTestPortal(t, backend, { env: { PORTAL_THROTTLE_PER_EMAIL: '2', PORTAL_THROTTLE_PER_ADDRESS: '100' } });
      const client = portal.client();
      assert.equal((await requestReset(client, 'ann@example.com')).statusCode, 200);
      assert.equal((await requestReset(client, 'ANN@example.com')).statusCode, 200);
      const third = await requestReset(client, 'ann@example.com');
      assert.equal(third.statusCode, 429);
      assert.ok(Number(third.headers['retry-after']) > 0);
      assert.equal((await requestReset(client, 'bob@example.com')).statusCode, 200, 'another email still may');
    });

    test('when an existing and an unknown address ask for a reset, then the median times are within 15 %', async (t) => {
      const portal = await createTestPortal(t, backend, { env: UNLIMITED });
      const { email } = await signUp(portal);
      const client = portal.client();
      await client.get('/forgot-password');
      const timed = async (address: string) => {
        const started = process.hrtime.bigint();
        assert.equal((await client.post('/forgot-password', { email: address })).statusCode, 200);
        return Number(process.hrtime.bigint() - started) / 1e6;
      };
      const rounds: string[] = [];
      for (let round = 0; round < 3; round += 1) {
        const known: number[] = [];
        const unknown: number[] = [];
        for (let i = 0; i < 9; i += 1) {
          known.push(await timed(email));
          unknown.push(await timed(`nobody-${round}-${i}@example.com`));
        }
        const [a, b] = [median(known), median(unknown)];
        rounds.push(`known ${a.toFixed(1)} ms, unknown ${b.toFixed(1)} ms`);
        if (Math.abs(a - b) / Math.max(a, b) <= 0.15) return;
      }
      assert.fail(`the medians differ by more than 15 % in every round: ${rounds.join('; ')}`);
    });
  });
}
