/** The portal in Chromium, on every backend: the first journey, without JavaScript, and the passkey button's readiness (accessibility: accessibility-browser.test.ts). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { addVirtualAuthenticator, browserSkip, signUp, signUpThroughMailbox, startBrowserPortal } from '../../support/browser.js';
import { TEST_PASSWORD } from '../../support/portal.js';
import { browserBackends } from '../../support/storage.js';

/** Every request the page makes stays on `origin`, and nothing is blocked by the CSP or fails. */
function watch(page: Page, origin: string): { offSite: string[]; problems: string[] } {
  const offSite: string[] = [];
  const problems: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(`${origin}/`)) offSite.push(request.url());
  });
  page.on('requestfailed', (request) => problems.push(`${request.url()} ${request.failure()?.errorText ?? ''}`));
  page.on('console', (message) => {
    // The failed sign-in's page is answered 401, which Chromium reports; anything else (a CSP refusal, a 404) is a problem.
    if (message.type() === 'error' && !message.text().includes('status of 401')) problems.push(message.text());
  });
  return { offSite, problems };
}

for (const backend of browserBackends()) {
  describe(`portal in a browser: ${backend.name}`, { skip: browserSkip }, () => {
    test('when a new user signs up as the README says (the form, the link in the Development mailbox, the password again), sees their account, signs out and signs in again, then each step lands where it should, with nothing loaded from elsewhere', async (t) => {
      const { origin, apiOrigin, newPage, portal } = await startBrowserPortal(t, backend);
      const page = await newPage();
      const seen = watch(page, origin);
      const email = `owner-${Date.now()}@example.com`;

      await signUpThroughMailbox(page, origin, email, 'Main Street Pets');
      const [account] = await portal.services.accounts.listAccounts();
      assert.ok(account !== undefined);
      assert.equal(await page.getByRole('heading', { level: 1 }).innerText(), 'Main Street Pets');
      const body = await page.locator('main').innerText();
      assert.match(body, new RegExp(`Account ID\\s+${account.id}`));
      assert.ok(body.includes(`${apiOrigin}/v1`), 'the API address is the store host the test started');
      assert.ok(body.includes(`curl -H "Authorization: Bearer YOUR_API_KEY" ${apiOrigin}/v1/store/orders`));
      assert.equal(await page.locator('header').getByText('Main Street Pets').count(), 1, 'the header names the store');
      // The quickstart works as shown once a key of the account takes the placeholder's place.
      const curl = await page.locator('#quickstart-curl').innerText();
      const { secret } = await portal.services.apiKeys.createKey({ accountId: account.id });
      const [, header, url] = /^curl -H "([^"]+)" (\S+)$/.exec(curl.trim().replace('YOUR_API_KEY', secret)) ?? [];
      const [name, value] = (header ?? '').split(': ');
      const answer = await fetch(url ?? '', { headers: { [name ?? '']: value ?? '' } });
      assert.equal(answer.status, 200);
      assert.deepEqual(await answer.json(), []);

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL(`${origin}/sign-in?signed-out=1`);
      await page.getByText('You have signed out.').waitFor();
      await page.goto(`${origin}/settings`);
      await page.waitForURL(`${origin}/sign-in?next=%2Fsettings`);

      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill('not the password at all');
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.getByText('Email or password is incorrect.').waitFor();

      await page.getByLabel('Password').fill(TEST_PASSWORD);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.waitForURL(`${origin}/settings`);
      await page.getByRole('heading', { name: 'Settings' }).waitFor();

      assert.deepEqual(seen.offSite, [], 'every script, style and form stays on the portal');
      assert.deepEqual(seen.problems, [], 'nothing failed or was blocked by the CSP');
    });

    test('when JavaScript is off, then signing up (the form, the mailed link), changing the password and signing out still work (every form is plain HTML)', async (t) => {
      const { origin, newPage } = await startBrowserPortal(t, backend);
      const page = await newPage({ javaScriptEnabled: false });
      await signUpThroughMailbox(page, origin, 'no-script@example.com', 'Plain HTML Pets');
      assert.equal(await page.getByRole('button', { name: 'Copy' }).count(), 0, 'the copy button needs the script and stays hidden without it');
      await page.goto(`${origin}/settings`);
      assert.equal(await page.getByRole('button', { name: 'Register a passkey' }).count(), 0, 'the passkey button needs the script and stays hidden without it');
      await page.getByLabel('Current password').fill(TEST_PASSWORD);
      await page.getByLabel('New password').fill('a different passphrase');
      await page.getByRole('button', { name: 'Change password' }).click();
      await page.getByText('Your password was changed.').waitFor();
      await page.getByRole('button', { name: 'Sign out', exact: true }).click();
      await page.waitForURL(`${origin}/sign-in?signed-out=1`);
    });

    test('when the portal\'s script (with the passkey library) is still loading, then "Register a passkey" is not shown (a press would be lost); once it has loaded, one press registers', async (t) => {
      const { origin, newPage } = await startBrowserPortal(t, backend);
      const page = await newPage();
      await addVirtualAuthenticator(page);
      await signUp(page, origin, 'slow-modules@example.com', 'Slow Network Pets');
      // The portal's one script, which holds the passkey library, arrives late, as on a slow network or a busy machine (routing bypasses the cache).
      const gate: { open?: () => void } = {};
      const held = new Promise<void>((resolve) => (gate.open = resolve));
      await page.route('**/assets/portal-*.js', async (route) => {
        await held;
        await route.continue();
      });
      // Not to 'load' nor DOMContentLoaded: both wait for the deferred script being held.
      await page.goto(`${origin}/settings`, { waitUntil: 'commit' });
      await page.getByRole('heading', { name: 'Passkeys' }).waitFor();
      assert.equal(await page.getByRole('button', { name: 'Register a passkey' }).isVisible(), false, 'no button before its handler exists');
      gate.open?.();
      await page.getByLabel('Passkey name').fill('Late laptop');
      const registered = page.waitForResponse(`${origin}/passkeys/register`);
      await page.getByRole('button', { name: 'Register a passkey' }).click();
      assert.equal((await registered).status(), 200);
      await page.waitForURL(`${origin}/settings?passkey=added`);
    });
  });
}
