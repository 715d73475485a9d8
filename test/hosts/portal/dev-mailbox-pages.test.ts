/**
 * The portal's development mailbox (docs/mail.md) over real requests: shown
 * only while SMTP_URL is unset and the portal is on a loopback HOST, only
 * the signed-in user's own mail, its links followable, its HTML part in a
 * sandboxed document of its own; a 404 everywhere else.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { portalLink } from '../../../src/mail/mail-links.js';
import { invitationMail, passwordResetMail } from '../../../src/mail/mail-templates.js';
import { createTestPortal, pageText, signUp, TEST_PORTAL_ORIGIN } from '../../support/portal.js';
import { httpBackends } from '../../support/storage.js';

const EXPIRES = '2026-11-24T11:00:00.000Z';
const NAV_LINK = '<a href="/dev/mailbox"';

for (const backend of httpBackends()) {
  describe(`portal development mailbox: ${backend.name}`, () => {
    test('when SMTP_URL is unset on a loopback portal, then a signed-in user sees their own mail, follows its link and opens its HTML part sandboxed; another user’s mail is a 404', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client, email } = await signUp(portal);
      const link = portalLink(TEST_PORTAL_ORIGIN, '/reset-password', { token: 'token-for-the-test' });
      const mine = await portal.services.mail.send(passwordResetMail({ to: email, link, expiresAt: EXPIRES }));
      const theirs = await portal.services.mail.send(invitationMail({ to: 'someone-else@example.com', link, storeName: 'Harbour <Pets>', expiresAt: EXPIRES }));

      const home = await client.get('/');
      assert.ok(home.body.includes(`${NAV_LINK}>Dev mailbox</a>`), 'linked from the navigation');
      const box = await client.get('/dev/mailbox');
      assert.equal(box.statusCode, 200);
      assert.equal(box.headers['cache-control'], 'no-store');
      assert.ok(box.body.includes(`${NAV_LINK} aria-current="page">`));
      const text = pageText(box.body);
      assert.ok(text.includes(`Here is the mail to ${email}`), text);
      assert.match(box.body, new RegExp(`<a href="/dev/mailbox/${mine}">Reset your Store Orders password</a>`));
      assert.equal(box.body.includes(theirs), false, 'only the user’s own mail');
      assert.equal(text.includes('Harbour'), false);

      const one = await client.get(`/dev/mailbox/${mine}`);
      assert.equal(one.statusCode, 200);
      assert.ok(one.body.includes(`<a href="${link}">${link}</a>`), 'the link in the text part can be followed');
      assert.ok(pageText(one.body).includes('The link works once, until 2026-11-24 11:00 UTC.'));
      const html = await client.get(`/dev/mailbox/${mine}/html`);
      assert.equal(html.statusCode, 200);
      assert.match(String(html.headers['content-security-policy']), /^sandbox [^;]*; default-src 'none'/);
      assert.ok(html.body.includes(`<a href="${link}">Choose a new password</a>`));

      for (const path of [`/dev/mailbox/${theirs}`, `/dev/mailbox/${theirs}/html`, '/dev/mailbox/no-such-mail']) {
        assert.equal((await client.get(path)).statusCode, 404, path);
      }
      const signedOut = await portal.client().get('/dev/mailbox');
      assert.equal(signedOut.statusCode, 303, 'signed in only');
    });

    for (const [why, env] of [
      ['SMTP_URL is set', { SMTP_URL: 'smtp://mailer:secret@127.0.0.1:2525' }],
      ['the portal listens on every interface', { HOST: '0.0.0.0' }],
    ] as const) {
      test(`when ${why}, then the development mailbox is a 404 and the navigation has no link to it`, async (t) => {
        const portal = await createTestPortal(t, backend, { env });
        const { client, email } = await signUp(portal);
        const id = await portal.services.mail.send(passwordResetMail({ to: email, link: `${TEST_PORTAL_ORIGIN}/reset-password`, expiresAt: EXPIRES }));
        for (const path of ['/dev/mailbox', `/dev/mailbox/${id}`, `/dev/mailbox/${id}/html`]) assert.equal((await client.get(path)).statusCode, 404, path);
        assert.equal((await client.get('/')).body.includes(NAV_LINK), false);
      });
    }
  });
}
