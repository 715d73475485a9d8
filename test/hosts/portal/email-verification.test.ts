/**
 * Issue 27, email verification and change of email: a sign-up with an
 * invitation queues a link (with the user, in one transaction; one without
 * is verified by its own link: sign-up-pages.test.ts); a banner with Resend
 * (throttled) is on every signed-in page until the link is followed, once; with
 * PORTAL_REQUIRE_VERIFIED_EMAIL=true creating an API key waits for it; a
 * change of email needs the password, happens only when the new address
 * follows its link, and tells the old address.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readSql } from '../../support/raw-sql.js';
import { httpBackends } from '../../support/storage.js';
import { createTestPortal, pageText, signUp, TEST_PASSWORD, type TestPortal } from '../../support/portal.js';

const BANNER = /Verify your email address/;

/** The newest mail to `email` of `kind`, opened as the operator's `mail show` does. */
async function newestMail(portal: TestPortal, email: string, kind: string) {
  const mails = (await portal.services.mail.list({ recipient: email, limit: 20 })).filter((mail) => mail.kind === kind);
  const [newest] = mails;
  return { count: mails.length, text: newest === undefined ? '' : ((await portal.services.mail.show(newest.id))?.body.text ?? '') };
}

/** The path and query of the newest verification link mailed to `email` (ready for the test client). */
async function verificationPath(portal: TestPortal, email: string): Promise<string> {
  const link = /(http\S+\/verify-email\?token=[A-Za-z0-9_-]+)/.exec((await newestMail(portal, email, 'email-verification')).text)?.[1];
  assert.ok(link !== undefined, `a verification link was mailed to ${email}`);
  const url = new URL(link);
  return `${url.pathname}${url.search}`;
}

for (const backend of httpBackends()) {
  describe(`portal email verification: ${backend.name}`, () => {
    test('when an invited user signs up, then a verification mail is queued, the banner shows on signed-in pages until the link is followed once, and no token is stored or logged in clear', async (t) => {
      const database = await backend.freshDatabase(t);
      const portal = await createTestPortal(t, backend, { over: { storage: database.storage, database: database.config } });
      const { client, email } = await signUp(portal, { verified: false });
      const path = await verificationPath(portal, email);
      assert.match(path, /^\/verify-email\?token=/);
      for (const page of ['/', '/keys', '/settings']) assert.match(pageText((await client.get(page)).body), BANNER, `banner on ${page}`);
      const token = new URLSearchParams(path.split('?')[1]).get('token') ?? '';
      const stored = JSON.stringify([await readSql(database.config, 'SELECT * FROM user_tokens'), await readSql(database.config, 'SELECT * FROM mail')]);
      assert.equal(stored.includes(token), false, 'the token is in no table in clear');

      const followed = await portal.client().get(path);
      assert.equal(followed.statusCode, 200);
      assert.match(pageText(followed.body), new RegExp(`Your email address ${email} is verified`));
      assert.doesNotMatch(pageText((await client.get('/')).body), BANNER, 'the banner is gone');
      const again = await portal.client().get(path);
      assert.equal(again.statusCode, 400);
      assert.match(pageText(again.body), /This link is not valid any more/);
      assert.equal(portal.logs.join('\n').includes(token), false, 'the token is in no log line');
      const audit = (await readSql(database.config, 'SELECT action FROM audit_events ORDER BY id')) as { action: string }[];
      assert.ok(audit.some((row) => row.action === 'user_email_verified'));
    });

    test('when Resend is pressed, then a new link is mailed and works; after verification Resend mails nothing; pressing it too often is throttled', async (t) => {
      const portal = await createTestPortal(t, backend, { env: { PORTAL_THROTTLE_PER_EMAIL: '3', PORTAL_THROTTLE_PER_ADDRESS: '100' } });
      const { client, email } = await signUp(portal, { verified: false });
      const resent = await client.post('/verify-email/resend', {}, {}, '/');
      assert.equal(resent.statusCode, 200);
      assert.match(pageText(resent.body), new RegExp(`We have sent a new link to ${email}`));
      assert.equal((await newestMail(portal, email, 'email-verification')).count, 2);
      assert.equal((await portal.client().get(await verificationPath(portal, email))).statusCode, 200, 'the newest link verifies');
      const after = await client.post('/verify-email/resend', {}, {}, '/');
      assert.equal(after.statusCode, 200);
      assert.equal((await newestMail(portal, email, 'email-verification')).count, 2, 'nothing mailed once verified');
      assert.equal((await client.post('/verify-email/resend', {}, {}, '/')).statusCode, 200);
      const throttled = await client.post('/verify-email/resend', {}, {}, '/');
      assert.equal(throttled.statusCode, 429, 'the fourth Resend of one email is over its budget of 3');
      const forged = await client.post('/verify-email/resend', {}, { csrf: null }, '/');
      assert.equal(forged.statusCode, 403, 'Resend needs the CSRF token');
    });

    test('when PORTAL_REQUIRE_VERIFIED_EMAIL=true, then an unverified user gets 403 "verify first" with Resend on key creation, and creates the key once verified', async (t) => {
      const portal = await createTestPortal(t, backend, { env: { PORTAL_REQUIRE_VERIFIED_EMAIL: 'true' } });
      const { client, email } = await signUp(portal, { verified: false });
      const refused = await client.post('/keys', { name: 'ci', expiresIn: '90d', scope: 'orders:read' }, {}, '/keys');
      assert.equal(refused.statusCode, 403);
      assert.match(pageText(refused.body), /Verify your email address first/);
      assert.match(refused.body, /action="\/verify-email\/resend"/);
      assert.equal((await portal.client().get(await verificationPath(portal, email))).statusCode, 200);
      const created = await client.post('/keys', { name: 'ci', expiresIn: '90d', scope: 'orders:read' }, {}, '/keys');
      assert.equal(created.statusCode, 201);
    });

    test('when PORTAL_REQUIRE_VERIFIED_EMAIL is left at false, then an unverified user creates keys at once', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client } = await signUp(portal, { verified: false });
      assert.equal((await client.post('/keys', { name: 'ci', expiresIn: '90d', scope: 'orders:read' }, {}, '/keys')).statusCode, 201);
    });

    test('when a user changes their email, then the password is required, the old address is told, and the new one takes effect only once its link is followed', async (t) => {
      const database = await backend.freshDatabase(t);
      const portal = await createTestPortal(t, backend, { over: { storage: database.storage, database: database.config } });
      const { client, email } = await signUp(portal);
      const newEmail = `new-${Math.random().toString(36).slice(2)}@example.com`;
      const wrong = await client.post('/settings/email', { newEmail, emailPassword: 'not my password at all' }, {}, '/settings');
      assert.equal(wrong.statusCode, 400);
      assert.match(pageText(wrong.body), /The current password is incorrect/);
      assert.equal((await newestMail(portal, newEmail, 'email-verification')).count, 0);

      const asked = await client.post('/settings/email', { newEmail, emailPassword: TEST_PASSWORD }, {}, '/settings');
      assert.equal(asked.statusCode, 200);
      assert.match(pageText(asked.body), new RegExp(`We have sent a link to ${newEmail}`));
      const notice = await newestMail(portal, email, 'email-change-notice');
      assert.equal(notice.count, 1);
      assert.match(notice.text, new RegExp(`change the address of that Store Orders portal user to ${newEmail}`));
      assert.match(notice.text, /If this was not you/);
      assert.equal((await portal.client().post('/sign-in', { email, password: TEST_PASSWORD }, {}, '/sign-in')).statusCode, 303, 'the old address still signs in');

      const path = await verificationPath(portal, newEmail);
      const followed = await portal.client().get(path);
      assert.equal(followed.statusCode, 200);
      assert.match(pageText(followed.body), new RegExp(`Your email address is now ${newEmail}`));
      assert.equal((await portal.client().get(path)).statusCode, 400, 'the link works once');
      assert.equal((await portal.client().post('/sign-in', { email: newEmail, password: TEST_PASSWORD }, {}, '/sign-in')).statusCode, 303, 'the new address signs in');
      assert.equal((await portal.client().post('/sign-in', { email, password: TEST_PASSWORD }, {}, '/sign-in')).statusCode, 401, 'the old one no longer does');
      const token = new URLSearchParams(path.split('?')[1]).get('token') ?? '';
      assert.equal(JSON.stringify(await readSql(database.config, 'SELECT * FROM user_tokens')).includes(token), false);
      assert.equal(portal.logs.join('\n').includes(token), false);
      const actions = ((await readSql(database.config, 'SELECT action FROM audit_events ORDER BY id')) as { action: string }[]).map((row) => row.action);
      assert.ok(actions.includes('user_email_change_requested') && actions.includes('user_email_changed'));
    });

    test('when the new address belongs to another user, then the answer is the same, no link is sent to it, and the address does not change', async (t) => {
      const portal = await createTestPortal(t, backend);
      const other = await signUp(portal);
      const { client, email } = await signUp(portal);
      const before = (await newestMail(portal, other.email, 'email-verification')).count;
      const asked = await client.post('/settings/email', { newEmail: other.email, emailPassword: TEST_PASSWORD }, {}, '/settings');
      assert.equal(asked.statusCode, 200);
      assert.match(pageText(asked.body), new RegExp(`We have sent a link to ${other.email}`));
      assert.equal((await newestMail(portal, other.email, 'email-verification')).count, before, 'no link to the taken address');
      assert.equal((await newestMail(portal, email, 'email-change-notice')).count, 1, 'the old address is told as always');
      const same = await client.post('/settings/email', { newEmail: email.toUpperCase(), emailPassword: TEST_PASSWORD }, {}, '/settings');
      assert.equal(same.statusCode, 400);
      assert.match(pageText(same.body), /That is already your address/);
    });
  });
}
