/** The Sessions list in Chromium, on every backend: two browsers of one user, End, Sign out everywhere else, the offer after a change, axe at 1280 and 360 px. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { axeViolations, browserSkip, signUp, startBrowserPortal } from '../../support/browser.js';
import { TEST_PASSWORD } from '../../support/portal.js';
import { browserBackends } from '../../support/storage.js';

/** Every wait of these tests is bounded by this. */
const WAIT_MS = 15_000;

/** Signs `page` in through the form and opens /settings. */
async function signInToSettings(page: Page, origin: string, email: string): Promise<void> {
  page.setDefaultTimeout(WAIT_MS);
  await page.goto(`${origin}/sign-in?next=%2Fsettings`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(TEST_PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL(`${origin}/settings`);
}

/** The rows of the Sessions table as text. */
async function sessionRows(page: Page): Promise<string[]> {
  return page.locator('table.sessions tbody tr').allInnerTexts();
}

for (const backend of browserBackends()) {
  describe(`sessions list in a browser: ${backend.name}`, { skip: browserSkip }, () => {
    test('when one user is signed in in two browsers, then each lists both with "This session" on its own row; one ends the other, which is signed out on its next request', { timeout: 120_000 }, async (t) => {
      const { origin, newPage } = await startBrowserPortal(t, backend);
      const first = await newPage();
      first.setDefaultTimeout(WAIT_MS);
      const email = `two-browsers-${Date.now()}@example.com`;
      await signUp(first, origin, email, 'Two Browser Pets');
      const second = await newPage({ viewport: { width: 360, height: 740 } });
      await signInToSettings(second, origin, email);
      await first.goto(`${origin}/settings`);

      for (const page of [first, second]) {
        const rows = await sessionRows(page);
        assert.equal(rows.length, 2, rows.join('\n'));
        assert.equal(rows.filter((row) => row.includes('This session')).length, 1);
        assert.ok(rows.every((row) => row.includes('Chrome on Linux')), rows.join('\n'));
        assert.equal(await page.getByRole('button', { name: /^End the session of/ }).count(), 1, 'End on the other row only');
        assert.deepEqual(await axeViolations(page), []);
        const overflow = await page.evaluate('document.documentElement.scrollWidth > document.documentElement.clientWidth');
        assert.equal(overflow, false, 'no sideways scrolling');
      }

      await first.getByRole('button', { name: /^End the session of/ }).click();
      await first.waitForURL(`${origin}/settings?sessions=ended#sessions-heading`);
      await first.getByText('That session has ended').waitFor();
      assert.equal((await sessionRows(first)).length, 1);
      await second.reload();
      await second.waitForURL(`${origin}/sign-in?next=%2Fsettings`);
    });

    test('when a user with two other browsers chooses Sign out everywhere else, then both are signed out and this one stays', { timeout: 120_000 }, async (t) => {
      const { origin, newPage } = await startBrowserPortal(t, backend);
      const page = await newPage();
      page.setDefaultTimeout(WAIT_MS);
      const email = `everywhere-else-${Date.now()}@example.com`;
      await signUp(page, origin, email, 'Everywhere Else Pets');
      const others = [await newPage(), await newPage()];
      for (const other of others) await signInToSettings(other, origin, email);
      await page.goto(`${origin}/settings`);
      assert.equal((await sessionRows(page)).length, 3);
      await page.getByRole('button', { name: 'Sign out everywhere else' }).click();
      await page.getByText('Every other session has ended').waitFor();
      assert.equal((await sessionRows(page)).length, 1);
      for (const other of others) {
        await other.reload();
        await other.waitForURL(`${origin}/sign-in?next=%2Fsettings`);
      }
    });

    test('when a passkey was added while another browser is signed in, then the page offers to end it (axe clean at 1280 and 360 px); a password change ends it at once', { timeout: 120_000 }, async (t) => {
      const { origin, newPage } = await startBrowserPortal(t, backend);
      const page = await newPage();
      page.setDefaultTimeout(WAIT_MS);
      const email = `offer-${Date.now()}@example.com`;
      await signUp(page, origin, email, 'Offer Pets');
      const other = await newPage();
      await signInToSettings(other, origin, email);

      // The page a passkey registration lands on (portal-browser.test.ts registers one for real).
      for (const viewport of [{ width: 1280, height: 800 }, { width: 360, height: 740 }]) {
        await page.setViewportSize(viewport);
        await page.goto(`${origin}/settings?passkey=added`);
        await page.getByText('You are still signed in in one other browser.').waitFor();
        assert.deepEqual(await axeViolations(page), [], `${viewport.width}px`);
      }
      await page.getByRole('button', { name: 'End the other sessions' }).click();
      await page.getByText('Every other session has ended').waitFor();
      await other.reload();
      await other.waitForURL(`${origin}/sign-in?next=%2Fsettings`);

      await signInToSettings(other, origin, email);
      await page.goto(`${origin}/settings`);
      await page.getByLabel('Current password').fill(TEST_PASSWORD);
      await page.getByLabel('New password').fill('a different passphrase');
      await page.getByRole('button', { name: 'Change password' }).click();
      await page.getByText('Your password was changed. Your other sessions have ended.').waitFor();
      assert.equal(await page.getByRole('button', { name: 'End the other sessions' }).count(), 0, 'nothing left to offer');
      assert.equal((await sessionRows(page)).length, 1);
      await other.reload();
      await other.waitForURL(`${origin}/sign-in?next=%2Fsettings`);
    });
  });
}
