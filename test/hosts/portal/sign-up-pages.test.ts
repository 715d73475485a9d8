/**
 * Issue 27, sign-up that does not reveal who has an account, over real
 * requests: the form answers every address with the same page, status and
 * headers, in the same time; a new address gets a one-time link that
 * creates the account (verified, signed in) once, with the password chosen
 * on the form; an address that has an account gets a mail saying so and no
 * second account; mail per address is bounded; the development mailbox
 * shows a signed-out visitor the mail of their sign-up.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { SIGN_UP_MAIL_BUDGET } from '../../../src/users/sign-up/sign-up-service.js';
import { readSql } from '../../support/raw-sql.js';
import { httpBackends } from '../../support/storage.js';
import { createTestPortal, pageText, signUp, TEST_PASSWORD, type TestPortal } from '../../support/portal.js';

const UNLIMITED = { PORTAL_THROTTLE_PER_EMAIL: '100000', PORTAL_THROTTLE_PER_ADDRESS: '100000' };
const STORE = 'Main Street Pets';

/**
 * Posts the sign-up form from a new browser, a second after the previous
 * one (so that "the newest mail" is one), its CSRF token from `formPage`.
 */
async function postSignUp(portal: TestPortal, email: string, { password = TEST_PASSWORD, storeName = STORE, formPage = '/sign-up' } = {}): Promise<LightMyRequestResponse> {
  portal.clock.advance(1000);
  return portal.client().post('/sign-up', { email, password, storeName }, {}, formPage);
}

/** The mail to `email` of `kind`, newest first, each with its text part (opened as `mail show` does). */
async function mailTo(portal: TestPortal, email: string, kind: string): Promise<{ id: string; subject: string; text: string }[]> {
  const records = (await portal.services.mail.list({ recipient: email, limit: 50 })).filter((mail) => mail.kind === kind);
  return Promise.all(records.map(async ({ id, subject }) => ({ id, subject, text: (await portal.services.mail.show(id))?.body.text ?? '' })));
}

/** The path and query of the link in the newest sign-up mail to `email`. */
async function signUpLink(portal: TestPortal, email: string): Promise<string> {
  const [newest] = await mailTo(portal, email, 'sign-up-confirmation');
  const link = /(http\S+\/sign-up\/confirm\?token=[A-Za-z0-9_-]+)/.exec(newest?.text ?? '')?.[1];
  assert.ok(link !== undefined, `a sign-up link was mailed to ${email}`);
  const url = new URL(link);
  return `${url.pathname}${url.search}`;
}

const tokenOf = (path: string) => new URLSearchParams(path.split('?')[1]).get('token') ?? '';

/** What a visitor can compare of two answers: status, headers and cookies (values of per-request ones left out), and the page. */
function comparable(response: LightMyRequestResponse, email: string) {
  const perRequest = new Set(['date', 'x-request-id', 'set-cookie']);
  const headers = Object.fromEntries(Object.entries(response.headers).filter(([name]) => !perRequest.has(name)));
  const cookies = (response.cookies as { name: string; value: string }[]).map((cookie) => ({ ...cookie, value: cookie.value.length > 0 }));
  return { status: response.statusCode, headers, cookies, body: response.body.replaceAll(email, '<address>') };
}

for (const backend of httpBackends()) {
  describe(`portal sign-up: ${backend.name}`, () => {
    test('when a new and an existing address sign up, then the answers are the same apart from the address, only the new one gets a link, and the existing one gets an "already have an account" mail and no second account', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { email: existing } = await signUp(portal, { email: 'kept@example.com' });
      const linksBefore = (await mailTo(portal, existing, 'sign-up-confirmation')).length;
      const fresh = 'newb@example.com';
      const forNew = await postSignUp(portal, fresh);
      const forExisting = await postSignUp(portal, existing, { password: 'another long passphrase', storeName: 'Another Store' });
      assert.equal(forNew.statusCode, 200);
      assert.deepEqual(comparable(forExisting, existing), comparable(forNew, fresh), 'byte for byte, but for the address');
      assert.ok(pageText(forNew.body).includes(`Check your email to continue We have sent a mail to ${fresh} . Follow the link`), pageText(forNew.body));

      assert.equal((await mailTo(portal, fresh, 'sign-up-account-exists')).length, 0);
      assert.match(await signUpLink(portal, fresh), /^\/sign-up\/confirm\?token=[A-Za-z0-9_-]{43}$/);
      const [told, ...more] = await mailTo(portal, existing, 'sign-up-account-exists');
      assert.equal(more.length, 0);
      assert.equal(told?.subject, 'You already have a Store Orders account');
      assert.ok(told.text.includes('Sign in:\nhttp://portal.test/sign-in\n'), told.text);
      assert.ok(told.text.includes('Forgot your password? Choose a new one:\nhttp://portal.test/forgot-password\n'), told.text);
      assert.equal(told.text.includes('Another Store'), false, 'nothing the visitor typed but the address');
      assert.equal((await mailTo(portal, existing, 'sign-up-confirmation')).length, linksBefore, 'no link for an address that has an account');
      assert.equal((await portal.services.accounts.listAccounts()).length, 1, 'no second account');
      assert.equal((await portal.services.users.listUsers()).length, 1);
      assert.equal((await portal.client().post('/sign-in', { email: existing, password: TEST_PASSWORD }, {}, '/sign-in')).statusCode, 303, 'the password is unchanged');
    });

    test('when the link is followed with the password chosen on the form, then one verified owner and their store exist, they are signed in, and the link works once', async (t) => {
      const database = await backend.freshDatabase(t);
      const portal = await createTestPortal(t, backend, { over: { storage: database.storage, database: database.config } });
      assert.equal((await postSignUp(portal, ' Ann@Example.com ', { storeName: '  Ann’s <Pets> ' })).statusCode, 200);
      assert.equal((await portal.services.users.listUsers()).length, 0, 'nothing exists before the link is followed');
      const path = await signUpLink(portal, 'ann@example.com');
      const token = tokenOf(path);

      const visitor = portal.client();
      const page = await visitor.get(path);
      assert.equal(page.statusCode, 200);
      assert.match(pageText(page.body), /Create the store Ann’s <Pets> for ann@example\.com : enter the password you chose/);
      assert.match(page.body, /Ann’s &lt;Pets&gt;/, 'escaped');
      const wrong = await visitor.post('/sign-up/confirm', { token, password: 'not the password at all' });
      assert.equal(wrong.statusCode, 400);
      assert.match(pageText(wrong.body), /This is not the password you chose when you signed up/);
      assert.equal((await portal.services.users.listUsers()).length, 0);

      const done = await visitor.post('/sign-up/confirm', { token, password: TEST_PASSWORD });
      assert.equal(done.statusCode, 303, 'a wrong password leaves the link usable');
      assert.equal(done.headers.location, '/');
      const [user, ...others] = await portal.services.users.listUsers();
      assert.equal(others.length, 0);
      assert.equal(user?.email, 'ann@example.com');
      assert.equal(user.emailVerifiedAt, user.createdAt, 'verified: the link proved the mailbox');
      const [account] = await portal.services.accounts.listAccounts();
      assert.deepEqual([account?.id, account?.name], [user.accountId, 'Ann’s <Pets>']);
      const home = await visitor.get('/');
      assert.equal(home.statusCode, 200);
      assert.match(pageText(home.body), new RegExp(`Account ID ${user.accountId}`));
      assert.doesNotMatch(pageText(home.body), /Verify your email address/, 'no verification banner');
      const { entries } = await portal.services.audit.list(user.accountId);
      assert.deepEqual(
        entries.map((entry) => [entry.action, entry.details]),
        [['user_created', { invited: false }]],
      );

      // The page of a used link has no form: the second browser posts with a token from another page, as a forged or replayed form would.
      for (const again of [await portal.client().get(path), await portal.client().post('/sign-up/confirm', { token, password: TEST_PASSWORD }, {}, '/sign-in')]) {
        assert.equal(again.statusCode, 400);
        assert.match(pageText(again.body), /This sign-up link is not valid any more: it was used, it expired \(after 24 hours\)/);
      }
      assert.deepEqual([(await portal.services.users.listUsers()).length, (await portal.services.accounts.listAccounts()).length], [1, 1], 'once');
      const stored = JSON.stringify([await readSql(database.config, 'SELECT * FROM sign_ups'), await readSql(database.config, 'SELECT * FROM mail')]);
      assert.equal(stored.includes(token), false, 'the token is in no table in clear');
      assert.equal(stored.includes(TEST_PASSWORD), false, 'nor the password');
      assert.equal(portal.logs.join('\n').includes(token), false, 'nor in the logs');
    });

    test('when a link is 24 hours old, replaced by a newer sign-up, or its address got an account meanwhile, then it creates nothing and its page says why', async (t) => {
      const portal = await createTestPortal(t, backend);
      await postSignUp(portal, 'late@example.com');
      const late = await signUpLink(portal, 'late@example.com');
      portal.clock.advance(24 * 3_600_000);
      const expired = await portal.client().get(late);
      assert.equal(expired.statusCode, 400);
      assert.match(pageText(expired.body), /This sign-up link is not valid any more/);
      assert.match(expired.body, /<a href="\/sign-up">sign up again<\/a>/);

      await postSignUp(portal, 'twice@example.com');
      const first = await signUpLink(portal, 'twice@example.com');
      await postSignUp(portal, 'twice@example.com', { password: 'the second long passphrase', storeName: 'Second Store' });
      const second = await signUpLink(portal, 'twice@example.com');
      assert.notEqual(first, second);
      assert.equal((await portal.client().get(first)).statusCode, 400, 'the newer sign-up replaced the first link');
      assert.match(pageText((await portal.client().get(second)).body), /Create the store Second Store/);
      assert.equal((await portal.client().post('/sign-up/confirm', { token: tokenOf(second), password: TEST_PASSWORD }, {}, second)).statusCode, 400, 'the first password no longer');
      assert.equal((await portal.client().post('/sign-up/confirm', { token: tokenOf(second), password: 'the second long passphrase' }, {}, second)).statusCode, 303);

      await postSignUp(portal, 'raced@example.com');
      const raced = await signUpLink(portal, 'raced@example.com');
      // Another way in meanwhile (an invitation): a pending sign-up of the address is left as it was.
      await signUp(portal, { email: 'raced@example.com', verified: false });
      const taken = await portal.client().get(raced);
      assert.equal(taken.statusCode, 409);
      assert.match(pageText(taken.body), /An account already uses raced@example\.com , so no new one was created\. Sign in/);
      assert.equal((await portal.client().post('/sign-up/confirm', { token: tokenOf(raced), password: TEST_PASSWORD }, {}, '/sign-in')).statusCode, 409);
      assert.equal((await portal.services.accounts.listAccounts()).length, 2, 'the two stores, and no third');
    });

    test(`when one address is signed up more than ${SIGN_UP_MAIL_BUDGET.limit} times in an hour, then the answer stays the same but no more mail is sent to it until the hour is over`, async (t) => {
      const portal = await createTestPortal(t, backend, { env: UNLIMITED });
      const { email: existing } = await signUp(portal);
      for (const email of ['flood@example.com', existing]) {
        for (let i = 0; i <= SIGN_UP_MAIL_BUDGET.limit; i += 1) {
          const answer = await postSignUp(portal, email);
          assert.equal(answer.statusCode, 200);
          assert.match(pageText(answer.body), /Check your email to continue/);
        }
      }
      assert.equal((await mailTo(portal, 'flood@example.com', 'sign-up-confirmation')).length, SIGN_UP_MAIL_BUDGET.limit);
      assert.equal((await mailTo(portal, existing, 'sign-up-account-exists')).length, SIGN_UP_MAIL_BUDGET.limit);
      const lastMailed = await signUpLink(portal, 'flood@example.com');
      assert.equal((await portal.client().get(lastMailed)).statusCode, 200, 'a sign-up over the budget does not replace the last link mailed');
      portal.clock.advance(SIGN_UP_MAIL_BUDGET.windowMs);
      await postSignUp(portal, 'flood@example.com');
      assert.equal((await mailTo(portal, 'flood@example.com', 'sign-up-confirmation')).length, SIGN_UP_MAIL_BUDGET.limit + 1, 'the next hour mails again');
    });

    test('when sign-up is closed, then the form refuses without an invitation and a link made while it was open creates nothing', async (t) => {
      const database = await backend.freshDatabase(t);
      const open = await createTestPortal(t, backend, { over: { storage: database.storage, database: database.config } });
      await postSignUp(open, 'early@example.com');
      const path = await signUpLink(open, 'early@example.com');
      const closed = await createTestPortal(t, backend, { env: { PORTAL_SIGNUP: 'closed' }, over: { storage: database.storage, database: database.config } });
      const refused = await postSignUp(closed, 'late@example.com', { formPage: '/sign-in' });
      assert.equal(refused.statusCode, 400);
      assert.match(pageText(refused.body), /Sign-up is by invitation only/);
      assert.equal((await mailTo(closed, 'late@example.com', 'sign-up-confirmation')).length, 0);
      const page = await closed.client().get(path);
      assert.equal(page.statusCode, 403);
      assert.match(pageText(page.body), /Sign-up is by invitation only/);
      assert.equal((await closed.client().post('/sign-up/confirm', { token: tokenOf(path), password: TEST_PASSWORD }, {}, '/sign-in')).statusCode, 403);
      assert.equal((await closed.services.users.listUsers()).length, 0);
    });

    test('when SMTP_URL is unset on a loopback portal, then the visitor reads their sign-up’s mail in the development mailbox without signing in, and only that mail', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { email: existing } = await signUp(portal);
      for (const [email, subject] of [
        ['mailbox@example.com', 'Finish creating your Store Orders account'],
        [existing, 'You already have a Store Orders account'],
      ] as const) {
        const visitor = portal.client();
        const answer = await visitor.post('/sign-up', { email, password: TEST_PASSWORD, storeName: STORE }, {}, '/sign-up');
        assert.match(answer.body, /<a href="\/dev\/sign-up-mail">Development mailbox<\/a>/);
        const shown = await visitor.get('/dev/sign-up-mail');
        assert.equal(shown.statusCode, 200, email);
        assert.equal(shown.headers['cache-control'], 'no-store');
        const text = pageText(shown.body);
        assert.ok(text.includes(`${subject} Development mailbox: SMTP_URL is not set`), text);
        assert.ok(text.includes(`To ${email}`), text);
        assert.doesNotMatch(shown.body, /The HTML part/);
      }
      const linked = await portal.client().get('/dev/sign-up-mail');
      assert.equal(linked.statusCode, 404, 'nothing without the cookie of a sign-up');
      const mine = await signUpLink(portal, 'mailbox@example.com');
      assert.equal((await portal.client().get(mine)).statusCode, 200);
    });

    test('when SMTP_URL is set, then the sign-up page does not point at the development mailbox, sets no cookie for it, and the page is a 404', async (t) => {
      const portal = await createTestPortal(t, backend, { env: { SMTP_URL: 'smtp://mailer:secret@127.0.0.1:2525' } });
      const visitor = portal.client();
      const answer = await visitor.post('/sign-up', { email: 'smtp@example.com', password: TEST_PASSWORD, storeName: STORE }, {}, '/sign-up');
      assert.equal(answer.statusCode, 200);
      assert.doesNotMatch(answer.body, /dev\/sign-up-mail/);
      assert.deepEqual(
        (answer.cookies as { name: string }[]).map((cookie) => cookie.name).filter((name) => name.includes('dev')),
        [],
      );
      assert.equal((await visitor.get('/dev/sign-up-mail')).statusCode, 404);
    });

    test('when a new and an existing address sign up, then the median times are within 15 %', async (t) => {
      const portal = await createTestPortal(t, backend, { env: UNLIMITED });
      const { email } = await signUp(portal);
      const client = portal.client();
      await client.get('/sign-up');
      const timed = async (address: string) => {
        const started = process.hrtime.bigint();
        assert.equal((await client.post('/sign-up', { email: address, password: TEST_PASSWORD, storeName: STORE })).statusCode, 200);
        return Number(process.hrtime.bigint() - started) / 1e6;
      };
      const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
      const rounds: string[] = [];
      for (let round = 0; round < 3; round += 1) {
        const known: number[] = [];
        const fresh: number[] = [];
        for (let i = 0; i < 7; i += 1) {
          known.push(await timed(email));
          fresh.push(await timed(`new-${round}-${i}@example.com`));
        }
        const [a, b] = [median(known), median(fresh)];
        rounds.push(`existing ${a.toFixed(1)} ms, new ${b.toFixed(1)} ms`);
        t.diagnostic(rounds.at(-1) ?? '');
        if (Math.abs(a - b) / Math.max(a, b) <= 0.15) return;
      }
      assert.fail(`the medians differ by more than 15 % in every round: ${rounds.join('; ')}`);
    });
  });
}
