/**
 * Re-authentication in a real browser (Debian's chromium): a user whose
 * sign-up is older than 10 minutes is asked to confirm with the password
 * before registering a passkey, then registers it; a user with a
 * passkey (a virtual authenticator) whose sign-in is older than 10 minutes
 * (the services' clock moved) is asked to confirm before Sign out
 * everywhere else, confirms with the passkey, and the other browser is
 * signed out; the email change is confirmed with the passkey instead of the
 * password. The confirmation page has no axe violation at 1280 and
 * 360 px.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { addVirtualAuthenticator, assertAccessible, browserSkip, signUp, startBrowserPortal } from '../../support/browser.js';
import { TEST_PASSWORD } from '../../support/portal.js';
import { storageBackends } from '../../support/storage.js';

const WAIT_MS = 15_000;
const PAST_WINDOW_MS = 11 * 60_000;

for (const backend of storageBackends()) {
  describe(`re-authentication in a browser: ${backend.name}`, { skip: browserSkip }, () => {
    test('when a stale session registers a passkey, signs out everywhere else or changes the email, then it is asked to confirm (the password, then the passkey); the other browser is signed out', async (t) => {
      const { origin, newPage, portal } = await startBrowserPortal(t, backend);
      const page = await newPage();
      page.setDefaultTimeout(WAIT_MS);
      await addVirtualAuthenticator(page);
      const email = `careful-${backend.name}@example.com`;
      await signUp(page, origin, email, 'Careful Pets');
      portal.clock.advance(PAST_WINDOW_MS);
      await page.goto(`${origin}/settings`);
      await page.getByLabel('Passkey name').fill('Laptop');
      await page.getByRole('button', { name: 'Register a passkey' }).click();
      await page.getByRole('heading', { name: 'Confirm it is you' }).waitFor();
      assert.match(await page.locator('main').innerText(), /To add a passkey, confirm with your password\./);
      await page.getByLabel('Password').fill(TEST_PASSWORD);
      await page.getByRole('button', { name: 'Confirm and continue' }).click();
      await page.waitForURL(`${origin}/settings?passkey=confirmed#passkeys-heading`);
      await page.getByLabel('Passkey name').fill('Laptop');
      await page.getByRole('button', { name: 'Register a passkey' }).click();
      await page.waitForURL(`${origin}/settings?passkey=added`);

      const other = await newPage();
      other.setDefaultTimeout(WAIT_MS);
      await other.goto(`${origin}/sign-in`);
      await other.getByLabel('Email').fill(email);
      await other.getByLabel('Password', { exact: true }).fill(TEST_PASSWORD);
      await other.getByRole('button', { name: 'Sign in', exact: true }).click();
      await other.waitForURL(`${origin}/`);

      portal.clock.advance(PAST_WINDOW_MS);
      await page.goto(`${origin}/settings`);
      await page.getByRole('button', { name: 'Sign out everywhere else' }).click();
      await page.getByRole('heading', { name: 'Confirm it is you' }).waitFor();
      assert.match(await page.locator('main').innerText(), /To sign out everywhere else, confirm with your password or one of your passkeys/);
      await assertAccessible(page, 'the confirmation page at 1280 px');
      await page.setViewportSize({ width: 360, height: 740 });
      await assertAccessible(page, 'the confirmation page at 360 px');
      await page.getByRole('button', { name: 'Confirm with a passkey' }).click();
      await page.waitForURL(`${origin}/settings?sessions=others#sessions-heading`);
      await other.goto(`${origin}/settings`);
      await other.waitForURL(/\/sign-in\?next=/);

      portal.clock.advance(PAST_WINDOW_MS);
      await page.goto(`${origin}/settings`);
      await page.getByLabel('New email address').fill(`renamed-${backend.name}@example.com`);
      await page.getByRole('button', { name: 'Confirm with a passkey instead' }).click();
      await page.getByText(`We have sent a link to renamed-${backend.name}@example.com`).waitFor();
    });
  });
}
