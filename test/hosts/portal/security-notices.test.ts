/**
 * Mail that tells a user a way they sign in changed (OWASP ASVS 5.0 6.3.7):
 * a password change or reset (queued in the same transaction as the new
 * password), two-step sign-in turned on or off, new recovery codes. Each
 * says what and when, and links only to the sign-in page and "Forgot
 * password?".
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createTestPortal, signUp, TEST_PASSWORD, type TestPortal } from '../../support/portal.js';
import { httpBackends } from '../../support/storage.js';
import { turnOn } from '../../support/two-step.js';

/** The security notices queued for `email`: subject and text. */
async function notices(portal: TestPortal, email: string): Promise<{ subject: string; text: string }[]> {
  const mails = (await portal.services.mail.list({ recipient: email, limit: 50 })).filter((mail) => mail.kind === 'security-notice');
  return Promise.all(mails.map(async (mail) => ({ subject: mail.subject, text: (await portal.services.mail.show(mail.id))?.body.text ?? '' })));
}

for (const backend of httpBackends()) {
  describe(`security notices by mail: ${backend.name}`, () => {
    test('when the password is changed or reset, or two-step sign-in turned on, given new codes or turned off, then the user is told each by mail, with no link that signs in', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client, email } = await signUp(portal);
      assert.deepEqual(await notices(portal, email), [], 'signing up is no change to tell of');

      const changed = await client.post('/settings/password', { currentPassword: TEST_PASSWORD, newPassword: 'a second passphrase 2026' }, {}, '/settings');
      assert.equal(changed.statusCode, 200);
      const refused = await client.post('/settings/password', { currentPassword: 'not it at all', newPassword: 'a third passphrase 2026' }, {}, '/settings');
      assert.equal(refused.statusCode, 400);
      await turnOn(portal, client);
      assert.equal((await client.post('/settings/two-step/recovery-codes', {}, {}, '/settings')).statusCode, 200);
      assert.equal((await client.post('/settings/two-step/off', {}, {}, '/settings')).statusCode, 303);
      const reset = await portal.services.users.createPasswordReset(email);
      assert.ok(reset !== undefined);
      assert.equal((await portal.client().post('/reset-password', { token: reset.token, password: 'a fourth passphrase 2026' }, {}, `/reset-password?token=${reset.token}`)).statusCode, 303);

      const told = await notices(portal, email);
      // The test's clock stands still: the five were queued at one instant, so compared as a set.
      assert.deepEqual(
        told.map((notice) => notice.subject).sort(),
        [
          'Your Store Orders password was changed',
          'Two-step sign-in is on for your Store Orders account',
          'New Store Orders recovery codes',
          'Two-step sign-in is off for your Store Orders account',
          'Your Store Orders password was reset',
        ].sort(),
      );
      for (const { text } of told) {
        assert.match(text, new RegExp(`For the Store Orders portal user ${email.replace(/[.]/g, '\\.')}, .+ on \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2} UTC\\.`));
        assert.deepEqual([...text.matchAll(/https?:\/\/\S+/g)].map((link) => new URL(link[0]).pathname), ['/sign-in', '/forgot-password'], 'no link that signs anyone in');
      }
    });
  });
}
