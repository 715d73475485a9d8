/**
 * The whole portal journey in a real browser (chromium through
 * playwright-core), on every backend: sign up (the link from the
 * Development mailbox), create a key, use it over
 * HTTP on the store host, cancel and ship orders, roll and revoke, register
 * a passkey, sign out, sign in with the password and with the passkey; axe
 * on every page on the way.
 */
import assert from 'node:assert/strict';
import { API_KEY_SCOPES } from '../../src/api-keys/api-key-scopes.js';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { addVirtualAuthenticator, assertAccessible, browserSkip, signUp, startBrowserPortal } from '../support/browser.js';
import { TEST_PASSWORD } from '../support/portal.js';
import { storageBackends } from '../support/storage.js';

async function listOrders(storeUrl: string, key: string): Promise<{ status: number; ids: string[] }> {
  const response = await fetch(`${storeUrl}/v1/store/orders`, { headers: { authorization: `Bearer ${key}` } });
  const body: unknown = await response.json();
  const ids = Array.isArray(body) ? body.map((order: { id?: unknown }) => String(order.id)) : [];
  return { status: response.status, ids };
}

/** Presses "Register a passkey" on /settings and waits for the page that says it was added (or fails with the page's message). */
async function registerPasskey(page: Page, portalUrl: string): Promise<void> {
  // Every passkey request the page sends, answers or loses, and where the page is, for the failure message.
  const steps: string[] = [];
  const passkeyPath = (url: string) => (url.startsWith(`${portalUrl}/passkeys/`) ? new URL(url).pathname : undefined);
  const sent = (request: { url(): string }) => void (passkeyPath(request.url()) && steps.push(`sent ${passkeyPath(request.url())}`));
  const seen = (response: { url(): string; status(): number }) => void (passkeyPath(response.url()) && steps.push(`${passkeyPath(response.url())} ${response.status()}`));
  const lost = (request: { url(): string; failure(): { errorText: string } | null }) =>
    void (passkeyPath(request.url()) && steps.push(`failed ${passkeyPath(request.url())} ${request.failure()?.errorText ?? ''}`));
  const navigated = (frame: { url(): string; parentFrame(): unknown }) => void (frame.parentFrame() === null && steps.push(`navigated to ${frame.url()}`));
  page.on('request', sent);
  page.on('response', seen);
  page.on('requestfailed', lost);
  page.on('framenavigated', navigated);
  const answered = page.waitForResponse((response) => response.url() === `${portalUrl}/passkeys/register`, { timeout: 45_000 }).catch(() => undefined);
  // One press. The box is shown only once passkeys.js has attached its
  // handler ([hidden] wins over .stack's display: the cause of a press
  // that once did nothing while the modules were still loading).
  await page.getByRole('button', { name: 'Register a passkey' }).click();
  const response = await answered;
  page.off('request', sent);
  page.off('response', seen);
  page.off('requestfailed', lost);
  page.off('framenavigated', navigated);
  const shown = await page.locator('#passkey-message').textContent().catch(() => '');
  assert.equal(
    response?.status(),
    200,
    `registration answered ${String(response?.status())} ${(await response?.text().catch(() => '')) ?? ''}; page at ${page.url()} says: ${shown ?? ''}; steps: ${steps.join(', ') || 'none'}`,
  );
  await page.waitForURL(`${portalUrl}/settings?passkey=added`);
}

for (const backend of storageBackends()) {
  describe(`portal journey in a browser: ${backend.name}`, { skip: browserSkip }, () => {
    test('when a new user goes from sign-up to API calls, order changes, key roll and revoke, and back in with a password and a passkey, then every step works and every page passes axe', async (t) => {
      const { portal, origin: portalUrl, apiOrigin: storeUrl, browser } = await startBrowserPortal(t, backend);
      const context = await browser.newContext();
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      page.on('console', (message) => {
        // Pages answering 4xx on purpose (the bad filter, the favicon) are not script errors; CSP refusals and exceptions are.
        if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) errors.push(message.text());
      });
      await addVirtualAuthenticator(page);
      const email = 'owner@example.com';

      // Sign up.
      await page.goto(`${portalUrl}/sign-up`);
      await assertAccessible(page, '/sign-up');
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(TEST_PASSWORD);
      await page.getByLabel('Store name').fill('Main Street Pets');
      await page.getByRole('button', { name: 'Create account' }).click();
      // Check your email: the link waits in the Development mailbox (no SMTP_URL); it asks for the password again.
      await page.getByRole('heading', { name: 'Check your email to continue' }).waitFor();
      await assertAccessible(page, 'check your email');
      await page.getByRole('link', { name: 'Development mailbox' }).click();
      await assertAccessible(page, '/dev/sign-up-mail');
      await page.getByRole('link', { name: /\/sign-up\/confirm\?token=/ }).click();
      await assertAccessible(page, '/sign-up/confirm');
      await page.getByLabel('Password').fill(TEST_PASSWORD);
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.waitForURL(`${portalUrl}/`);
      await assertAccessible(page, '/');
      const user = await portal.storage.users.findByEmail(email);
      assert.ok(user !== undefined);
      await portal.services.orderOperations.createOrder({ accountId: user.accountId, id: 1001n, petId: 7n, quantity: 1 });
      await portal.services.orderOperations.createOrder({ accountId: user.accountId, id: 1002n, petId: 8n, quantity: 2 });

      // Create a key; it is shown once and works over HTTP on the store host.
      await page.getByRole('link', { name: 'API keys' }).click();
      await assertAccessible(page, '/keys (empty)');
      await page.getByLabel('Key name').fill('till');
      for (const scope of API_KEY_SCOPES) assert.equal(await page.getByLabel(scope).isChecked(), true, scope);
      assert.equal(await page.getByLabel('Expires in').inputValue(), '90d');
      await page.getByRole('button', { name: 'Create key' }).click();
      const newKey = page.getByLabel('New API key', { exact: true });
      const key = await newKey.inputValue();
      assert.match(key, /^so_/);
      assert.equal(await newKey.getAttribute('readonly'), '');
      assert.ok(!page.url().includes(key));
      await assertAccessible(page, '/keys (new key)');
      assert.deepEqual(await listOrders(storeUrl, key), { status: 200, ids: ['1001', '1002'] });

      // Cancel 1001 (confirmed on a second page), ship 1002; the API's pending list empties.
      await page.getByRole('link', { name: 'Orders' }).click();
      await assertAccessible(page, '/orders');
      await page.getByRole('link', { name: 'Cancel order 1001' }).click();
      await assertAccessible(page, 'cancel confirmation');
      await page.getByRole('button', { name: 'Cancel this order' }).click();
      await page.getByText('Order 1001 was cancelled.').waitFor();
      assert.deepEqual((await listOrders(storeUrl, key)).ids, ['1002']);
      await page.getByRole('button', { name: 'Mark shipped: order 1002' }).click();
      await page.getByText('Order 1002 was marked shipped.').waitFor();
      // v1 lists pending and shipped orders; a cancelled one is gone.
      assert.deepEqual((await listOrders(storeUrl, key)).ids, ['1002']);
      await page.goto(`${portalUrl}/orders?petId=abc`);
      await page.getByText('Pet ID must be a whole number').waitFor();
      await assertAccessible(page, '/orders (bad filter)');

      // Roll with no grace: the new key works, the old one is refused; then revoke the new one.
      await page.getByRole('link', { name: 'API keys' }).click();
      await page.getByRole('link', { name: 'Roll till' }).click();
      await assertAccessible(page, 'roll confirmation');
      await page.getByLabel('Old key keeps working').selectOption('now');
      await page.getByRole('button', { name: 'Roll key' }).click();
      const rolled = await page.getByLabel('New API key', { exact: true }).inputValue();
      assert.notEqual(rolled, key);
      assert.equal((await listOrders(storeUrl, key)).status, 401);
      assert.equal((await listOrders(storeUrl, rolled)).status, 200);
      await page.getByRole('link', { name: 'Revoke till' }).click();
      await assertAccessible(page, 'revoke confirmation');
      await page.getByRole('button', { name: 'Revoke key' }).click();
      await page.getByText('The key was revoked.').waitFor();
      assert.equal((await listOrders(storeUrl, rolled)).status, 401);

      await page.getByRole('link', { name: 'Audit trail' }).click();
      await assertAccessible(page, '/audit');
      for (const action of ['API key revoked', 'API key rolled', 'API key created', 'Order shipped', 'Order cancelled']) await page.getByText(action).first().waitFor();

      // Register a passkey on /settings.
      await page.getByRole('link', { name: 'Settings' }).click();
      await page.getByLabel('Passkey name').fill('Virtual key');
      await registerPasskey(page, portalUrl);
      await page.getByText('Your passkey was added.').waitFor();
      await assertAccessible(page, '/settings');
      assert.equal((await portal.services.passkeys.list(user.id)).length, 1);

      // Sign out; sign in with the password; sign out; sign in with the passkey.
      await page.getByRole('button', { name: 'Sign out', exact: true }).click();
      await page.waitForURL(`${portalUrl}/sign-in?signed-out=1`);
      await assertAccessible(page, '/sign-in');
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(TEST_PASSWORD);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.waitForURL(`${portalUrl}/`);
      await page.getByRole('button', { name: 'Sign out', exact: true }).click();
      await page.waitForURL(`${portalUrl}/sign-in?signed-out=1`);
      await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      await page.waitForURL(`${portalUrl}/`);
      await page.getByRole('link', { name: 'Main Street Pets' }).waitFor();
      const { entries } = await portal.services.audit.list(user.accountId, { limit: 1 });
      assert.deepEqual([entries[0]?.action, entries[0]?.details], ['authn_login_success', { method: 'passkey' }]);
      assert.deepEqual(errors, [], 'no script error or CSP refusal on any page');
    });

    test('when a stranger presses "Sign in with a passkey" with a passkey this portal does not know, then the one generic message shows and no one is signed in', async (t) => {
      const { origin: portalUrl, browser } = await startBrowserPortal(t, backend);
      const page = await (await browser.newContext()).newPage();
      await addVirtualAuthenticator(page);
      // A passkey of another site with the same RP ID (another portal on localhost) is unknown here.
      const other = await startBrowserPortal(t, backend);
      await signUp(page, other.origin, 'someone@example.com', 'Elsewhere');
      await page.goto(`${other.origin}/settings`);
      await registerPasskey(page, other.origin);

      await page.goto(`${portalUrl}/sign-in`);
      await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      await page.getByText('That passkey could not sign you in.').waitFor();
      assert.equal(new URL(page.url()).pathname, '/sign-in');
      assert.equal((await page.goto(`${portalUrl}/keys`))?.url(), `${portalUrl}/sign-in?next=%2Fkeys`);
    });
  });
}
