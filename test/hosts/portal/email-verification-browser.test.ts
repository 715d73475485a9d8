/**
 * Issue 27, email verification in a real browser: after sign-up the banner
 * is on the page (axe finds nothing serious or critical on the page, and
 * nothing at all in the banner), **Resend**
 * mails a new link through a real SMTP server by the server's mail engine,
 * and following the link verifies the address and removes the banner.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import { assertAccessible, browserSkip, signUp, startBrowserPortalWithMail } from '../../support/browser.js';
import { waitFor } from '../../support/process.js';
import { httpBackends } from '../../support/storage.js';

const WAIT_MS = 15_000;

for (const backend of httpBackends()) {
  describe(`email verification in a browser: ${backend.name}`, { skip: browserSkip }, () => {
    test('when a new user sees the banner, presses Resend and follows the mailed link, then the address is verified and the banner is gone', async (t) => {
      const { origin, newPage, smtp } = await startBrowserPortalWithMail(t, backend);

      const page = await newPage();
      page.setDefaultTimeout(WAIT_MS);
      const email = `verify-${backend.name}@example.com`;
      await signUp(page, origin, email, 'Verified Pets');
      const banner = page.getByRole('region', { name: 'Verify your email address' });
      await banner.waitFor();
      await assertAccessible(page, 'the account page with the verification banner');
      const { violations } = await new AxeBuilder({ page }).include('#verify-email-heading').include('section[aria-labelledby="verify-email-heading"]').analyze();
      assert.deepEqual(violations.map((violation) => violation.id), [], 'the banner has no axe violation at all');
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
