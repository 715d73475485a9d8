/**
 * Issue 27, the addresses of new users in a real browser, with mail going
 * out through a real SMTP server by the server's mail engine: a sign-up's
 * link arrives, and following it creates the store with its owner signed
 * in and verified, while the same address again gets "You already have an
 * account"; an invited user sees the verification banner (axe finds no
 * violation on the page, of any impact),
 * **Resend** mails a new link, and following it removes the banner.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { assertAccessible, browserSkip, startBrowserPortalWithMail } from '../../support/browser.js';
import { TEST_PASSWORD } from '../../support/portal.js';
import { waitFor } from '../../support/process.js';
import { browserBackends } from '../../support/storage.js';

const WAIT_MS = 15_000;

/** Fills in and sends the sign-up form (`invite`: the form an invitation link opens, which asks no store name). */
async function fillSignUp(page: Page, url: string, email: string, store?: string): Promise<void> {
  await page.goto(url);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(TEST_PASSWORD);
  if (store !== undefined) await page.getByLabel('Store name').fill(store);
  await page.getByRole('button', { name: 'Create account' }).click();
}

for (const backend of browserBackends()) {
  describe(`new users' addresses in a browser: ${backend.name}`, { skip: browserSkip }, () => {
    test('when a new user signs up and follows the link that arrived by SMTP, then their store exists and they are signed in, verified; the same address again gets "You already have an account" and no second store', async (t) => {
      const { origin, newPage, smtp, portal } = await startBrowserPortalWithMail(t, backend);
      const page = await newPage();
      page.setDefaultTimeout(WAIT_MS);
      const email = `mailed-${backend.name}@example.com`;
      await fillSignUp(page, `${origin}/sign-up`, email, 'Mailed Pets');
      await page.getByText(`We have sent a mail to ${email}.`).waitFor();
      assert.equal(await page.getByRole('link', { name: 'Development mailbox' }).count(), 0, 'no development mailbox once SMTP_URL is set');
      await waitFor(() => smtp.arrived.length >= 1, 'the sign-up mail to arrive', WAIT_MS);
      assert.deepEqual([smtp.arrived[0]?.to, smtp.arrived[0]?.subject], [email, 'Finish creating your Store Orders account']);
      const link = /(http\S+\/sign-up\/confirm\?token=[A-Za-z0-9_-]+)/.exec(smtp.arrived[0]?.text ?? '')?.[1];
      assert.ok(link?.startsWith(`${origin}/sign-up/confirm?token=`), `the mail links to this portal: ${String(link)}`);

      await page.goto(link ?? '');
      await page.getByText('Create the store Mailed Pets').waitFor();
      await assertAccessible(page, 'the sign-up link page');
      await page.getByLabel('Password').fill(TEST_PASSWORD);
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.waitForURL(`${origin}/`);
      await page.getByRole('heading', { name: 'Mailed Pets' }).waitFor();
      assert.equal(await page.getByRole('region', { name: 'Verify your email address' }).count(), 0, 'verified by the link: no banner');

      const again = await newPage();
      again.setDefaultTimeout(WAIT_MS);
      await fillSignUp(again, `${origin}/sign-up`, email, 'Second Store');
      await again.getByText(`We have sent a mail to ${email}.`).waitFor();
      await waitFor(() => smtp.arrived.length >= 2, 'the second mail to arrive', WAIT_MS);
      assert.equal(smtp.arrived[1]?.subject, 'You already have a Store Orders account');
      assert.ok(smtp.arrived[1]?.text.includes(`${origin}/forgot-password`), smtp.arrived[1]?.text);
      assert.equal((await portal.services.accounts.listAccounts()).length, 1, 'no second store');
    });

    test('when an invited user sees the banner, presses Resend and follows the mailed link, then the address is verified and the banner is gone', async (t) => {
      const { origin, newPage, smtp, portal } = await startBrowserPortalWithMail(t, backend);
      const account = await portal.services.accounts.createAccount({ name: 'Verified Pets' });
      const { token } = await portal.services.team.inviteByOperator(account.id, 'developer');

      const page = await newPage();
      page.setDefaultTimeout(WAIT_MS);
      const email = `verify-${backend.name}@example.com`;
      await fillSignUp(page, `${origin}/sign-up?invite=${token}`, email);
      await page.waitForURL(`${origin}/`);
      const banner = page.getByRole('region', { name: 'Verify your email address' });
      await banner.waitFor();
      await assertAccessible(page, 'the account page with the verification banner');
      await waitFor(() => smtp.arrived.length >= 1, 'the sign-up mail to arrive', WAIT_MS);

      await banner.getByRole('button', { name: 'Resend the verification link' }).click();
      await page.getByText(`We have sent a new link to ${email}`).waitFor();
      await waitFor(() => smtp.arrived.length >= 2, 'the resent mail to arrive', WAIT_MS);
      assert.deepEqual(
        smtp.arrived.map((mail) => mail.to),
        [email, email],
      );
      const link = /(http\S+\/verify-email\?token=[A-Za-z0-9_-]+)/.exec(smtp.arrived[1]?.text ?? '')?.[1];
      assert.ok(link?.startsWith(`${origin}/verify-email?token=`), `the mail links to this portal: ${String(link)}`);

      await page.goto(link ?? '');
      await page.getByText(`Your email address ${email} is verified`).waitFor();
      await page.goto(`${origin}/`);
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      assert.equal(await banner.count(), 0, 'the banner is gone');
      await page.goto(link ?? '');
      await page.getByText('This link is not valid any more').waitFor();
    });
  });
}
