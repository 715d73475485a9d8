/**
 * Issue 27, "Forgot password?" end to end in a real browser: the mail goes
 * through a real SMTP server (test/support/smtp.ts) by the server's mail
 * engine; the user, who has a passkey, follows the mailed link and confirms
 * the new password with that passkey (a virtual authenticator).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { addVirtualAuthenticator, browserSkip, signUp, startBrowserPortalWithMail } from '../../support/browser.js';
import { waitFor } from '../../support/process.js';
import { storageBackends } from '../../support/storage.js';

const NEW_PASSWORD = 'a brand new passphrase';
const WAIT_MS = 15_000;

for (const backend of storageBackends()) {
  describe(`forgot password in a browser: ${backend.name}`, { skip: browserSkip }, () => {
    test('when a user with a passkey forgets the password, then the mailed link (through SMTP) with a passkey confirmation sets a new one, and an unknown address gets no mail', async (t) => {
      const { origin, newPage, portal, smtp } = await startBrowserPortalWithMail(t, backend);

      const page = await newPage();
      page.setDefaultTimeout(WAIT_MS);
      await addVirtualAuthenticator(page);
      const email = `forgetful-${backend.name}@example.com`;
      await signUp(page, origin, email, 'Forgetful Pets');
      await page.goto(`${origin}/settings`);
      await page.getByLabel('Passkey name').fill('Laptop');
      await page.getByRole('button', { name: 'Register a passkey' }).click();
      await page.waitForURL(`${origin}/settings?passkey=added`);
      await page.getByRole('button', { name: 'Sign out', exact: true }).click();
      await page.waitForURL(`${origin}/sign-in?signed-out=1`);

      for (const address of ['nobody@example.com', email]) {
        await page.goto(`${origin}/sign-in`);
        await page.getByRole('link', { name: 'Forgot password?' }).click();
        await page.getByLabel('Email').fill(address);
        await page.getByRole('button', { name: 'Send the link' }).click();
        await page.getByText('If an account uses that address, we have sent it a link').waitFor();
      }
      // Sign-up also mailed a verification link: only the reset mails count here.
      const resets = () => smtp.arrived.filter((mail) => mail.subject === 'Reset your Store Orders password');
      await waitFor(() => resets().length > 0, 'the reset mail to arrive', WAIT_MS);
      assert.deepEqual(
        resets().map((mail) => mail.to),
        [email],
        'only the existing address gets a mail',
      );
      const link = /(http\S+\/reset-password\?token=[A-Za-z0-9_-]+)/.exec(resets()[0]?.text ?? '')?.[1];
      assert.ok(link?.startsWith(`${origin}/reset-password?token=`), `the mail links to this portal: ${String(link)}`);

      await page.goto(link ?? '');
      await page.getByText('Your account has a passkey').waitFor();
      await page.getByLabel('New password').fill(NEW_PASSWORD);
      await page.getByRole('button', { name: 'Set password' }).click();
      await page.waitForURL(`${origin}/sign-in?reset=1`);

      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password', { exact: true }).fill(NEW_PASSWORD);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.waitForURL(`${origin}/`);

      await page.goto(link ?? '');
      await page.getByText('This reset link is not valid any more').waitFor();
      const token = new URL(link ?? '').searchParams.get('token') ?? '';
      assert.equal(portal.logs.join('\n').includes(token), false, 'the token is not logged');
    });
  });
}
