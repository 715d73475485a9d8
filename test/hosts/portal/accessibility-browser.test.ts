/**
 * axe-core at zero violations (every impact, every rule axe runs by default)
 * on every page the portal has, at a laptop and a phone size, in Chromium,
 * and no page wider than the window. Refused forms (sign-up, the link's
 * wrong password, a key without scope, a mistyped store name) are checked
 * with their messages.
 * The pages are met as users meet them: a sign-up through the development
 * mailbox, a key, an order, a request log, a webhook delivery, a teammate,
 * an invitation from another store, two-step sign-in set up and used, a
 * stale session asked to confirm, a forgotten password. Each check names its template (portal/views/*.eta),
 * and the test fails when a template was never checked: a new page is
 * covered the day it is added.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { describe, test } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import type { Page } from 'playwright-core';
import { PORTAL_FILES } from '../../../src/hosts/portal/portal-render.js';
import { axeViolations, browserSkip, scrollsSideways, startBrowserPortal } from '../../support/browser.js';
import { pageText, signUp, TEST_PASSWORD, type TestPortal } from '../../support/portal.js';
import { browserBackends } from '../../support/storage.js';

const LAPTOP = { width: 1280, height: 800 };
const PHONE = { width: 360, height: 740 };
const PAST_REAUTHENTICATION_WINDOW_MS = 11 * 60_000;
/** Loopback allowed, so that the webhooks page can add an endpoint (port 9: nothing listens; a delivery is made and fails). */
const LOOPBACK_ENV = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8' };

/** Every template of a page (the layout and partials are in every one of them). */
const TEMPLATES = readdirSync(`${PORTAL_FILES}views`)
  .filter((name) => name.endsWith('.eta') && name !== 'layout.eta')
  .map((name) => name.replace(/\.eta$/, ''))
  .sort();

/** The link of the invitation mailed to `recipient` that is still pending. */
async function pendingInvitationLink(portal: TestPortal, recipient: string): Promise<string> {
  for (const mail of await portal.services.mail.list({ recipient, limit: 20 })) {
    const link = /https?:\/\/\S+[?&]invite=([A-Za-z0-9_-]+)/.exec((await portal.services.mail.show(mail.id))?.body.text ?? '');
    if (link !== null && (await portal.services.team.peek(link[1] ?? '')) !== undefined) return link[0];
  }
  throw new Error(`no pending invitation was mailed to ${recipient}`);
}

for (const backend of browserBackends()) {
  describe(`portal accessibility in a browser: ${backend.name}`, { skip: browserSkip }, () => {
    test('when every page of the portal is shown at 1280 and 360 px, then axe finds no violation of any impact on any of them (refused forms included), and none scrolls sideways', async (t) => {
      const { origin, apiOrigin, newPage, portal } = await startBrowserPortal(t, backend, { env: LOOPBACK_ENV });
      const checked = new Set<string>();
      const violations: string[] = [];
      /** axe on `page` as it is now at both sizes, counted for `template`. */
      const check = async (page: Page, template: string): Promise<void> => {
        assert.ok(TEMPLATES.includes(template), `${template} is a template`);
        checked.add(template);
        for (const viewport of [LAPTOP, PHONE]) {
          await page.setViewportSize(viewport);
          violations.push(...(await axeViolations(page)).map((line) => `${template} at ${viewport.width} px: ${line}`));
          if (await scrollsSideways(page)) violations.push(`${template} at ${viewport.width} px: ${page.url()} scrolls sideways`);
        }
        await page.setViewportSize(LAPTOP);
      };
      const page = await newPage({ viewport: LAPTOP });
      page.setDefaultTimeout(15_000);

      await page.goto(`${origin}/sign-in`);
      await check(page, 'sign-in');
      await page.goto(`${origin}/forgot-password`);
      await check(page, 'forgot-password');
      await page.goto(`${origin}/verify-email?token=not-a-token`);
      await check(page, 'verify-email');
      await page.goto(`${origin}/reset-password?token=not-a-token`);
      await check(page, 'reset-password');
      await page.goto(`${origin}/sign-up`);
      await check(page, 'sign-up');
      // Refused forms show their messages on the same page: checked as the page they are.
      await page.getByLabel('Email').fill('not-an-email');
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.locator('.field-error, .alert.error').first().waitFor();
      await check(page, 'sign-up');
      // The sign-up, as signUpThroughMailbox walks it, with a check on each page it passes.
      const email = `everything-${backend.name}@example.com`;
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(TEST_PASSWORD);
      await page.getByLabel('Store name').fill('Every Page Pets');
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.getByRole('heading', { name: 'Check your email to continue' }).waitFor();
      await check(page, 'sign-up-sent');
      await page.getByRole('link', { name: 'Development mailbox' }).click();
      await page.getByRole('link', { name: /\/sign-up\/confirm\?token=/ }).waitFor();
      await check(page, 'dev-mail');
      await page.getByRole('link', { name: /\/sign-up\/confirm\?token=/ }).click();
      await page.getByLabel('Password').waitFor();
      await check(page, 'sign-up-confirm');
      await page.getByLabel('Password').fill('not the password at all');
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.getByText('This is not the password you chose').waitFor();
      await check(page, 'sign-up-confirm');
      await page.getByLabel('Password').fill(TEST_PASSWORD);
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.waitForURL(`${origin}/`);
      await check(page, 'home');
      await page.goto(`${origin}/dev/mailbox`);
      await check(page, 'dev-mailbox');

      await page.goto(`${origin}/keys`);
      await page.getByLabel('Key name').fill('Till');
      for (const scope of await page.getByRole('checkbox').all()) await scope.uncheck();
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.getByText('Choose at least one scope.').waitFor();
      await check(page, 'keys');
      for (const scope of await page.getByRole('checkbox').all()) await scope.check();
      await page.getByRole('button', { name: 'Create key' }).click();
      const key = (await page.getByLabel('New API key', { exact: true }).inputValue()).trim();
      await check(page, 'keys');
      await page.getByRole('link', { name: 'Roll Till' }).click();
      await check(page, 'key-roll');
      await page.goto(`${origin}/keys`);
      await page.getByRole('link', { name: 'Revoke Till' }).click();
      await check(page, 'key-revoke');

      await page.goto(`${origin}/orders`);
      await page.getByLabel('Pet ID', { exact: true }).last().fill('7');
      await page.getByLabel('Quantity').fill('2');
      await page.getByRole('button', { name: 'Place order' }).click();
      await page.waitForURL(/\/orders\?placed=/);
      await check(page, 'orders');
      const orderId = /placed=(\d+)/.exec(page.url())?.[1] ?? '';
      await page.goto(`${origin}/orders/${orderId}/cancel`);
      await check(page, 'order-cancel');
      await page.getByRole('button', { name: /Cancel/ }).last().click();
      await page.waitForURL(/\/orders\?cancelled=/);
      await page.goto(`${origin}/orders/${orderId}/cancel`);
      await check(page, 'order-conflict');

      // A request the key makes, refused (a 404 with its Error record): the Logs page and its detail.
      const answer = await fetch(`${apiOrigin}/v1/store/orders/999999`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } });
      assert.equal(answer.status, 404);
      await portal.services.requestLogRecorder.flush();
      await page.goto(`${origin}/logs`);
      await check(page, 'logs');
      await page.getByRole('link', { name: 'DELETE /v1/store/orders/999999' }).click();
      await page.waitForURL(/\/logs\/[^/?]+$/);
      await check(page, 'log');

      await page.goto(`${origin}/webhooks`);
      await page.getByLabel('Endpoint URL').fill('http://127.0.0.1:9/hooks');
      await page.getByLabel('Description').fill('Fulfilment');
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      await page.getByLabel('Signing secret').waitFor();
      await page.goto(`${origin}/webhooks`);
      await check(page, 'webhooks');
      await page.getByRole('link', { name: /^Deliveries to / }).click();
      await page.getByRole('button', { name: 'Send test event' }).click();
      await page.waitForURL(/\/test$/);
      // An order placed through the API, its event delivered to the endpoint: the engine's claim and a failed first attempt, as order-page-browser.test.ts makes them (no engine runs here).
      const placed = await fetch(`${apiOrigin}/v2/store/orders`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ petId: 12, quantity: 1 }) });
      assert.equal(placed.status, 201);
      const [claimed] = await portal.storage.webhooks.claimDue({ claimant: 'engine', now: new Date(Date.now() + 60_000).toISOString(), claimedUntil: new Date(Date.now() + 120_000).toISOString(), limit: 1 });
      assert.ok(claimed !== undefined, 'the order made a delivery');
      await portal.storage.webhooks.markAttemptFailed({ id: claimed.id, claimant: 'engine', at: new Date().toISOString(), attempt: 1, statusCode: 500, durationMs: 40, error: 'The endpoint answered HTTP 500.', retryAt: new Date(Date.now() + 600_000).toISOString() });
      const endpointPath = new URL(page.url()).pathname.replace(/\/test$/, '');
      await check(page, 'webhook-deliveries');
      await page.goto(`${origin}${endpointPath}`);
      await page.locator('a[href*="/deliveries/"]').first().click();
      await page.waitForURL(/\/deliveries\/[^/]+$/);
      await check(page, 'webhook-delivery');
      await page.goto(`${origin}${endpointPath}/rotate`);
      await check(page, 'webhook-rotate');
      await page.goto(`${origin}${endpointPath}/delete`);
      await check(page, 'webhook-delete');
      await page.goto(`${origin}${endpointPath}/order-page-does-not-exist`);
      await check(page, 'error');
      await page.goto(`${origin}/orders/${orderId}`);
      await check(page, 'order');
      await page.goto(`${origin}/audit`);
      await check(page, 'audit');

      // A teammate through the Team page's mailed invitation, in a browser of their own; then the owner's Remove.
      const teammate = `teammate-${backend.name}@example.com`;
      await page.goto(`${origin}/team`);
      await page.getByRole('textbox', { name: 'Email' }).fill(teammate);
      await page.getByLabel('Role', { exact: true }).selectOption('developer');
      await page.getByRole('button', { name: 'Send invitation' }).click();
      await page.getByText('The invitation is on its way').waitFor();
      await check(page, 'team');
      const joiner = await newPage({ viewport: LAPTOP });
      joiner.setDefaultTimeout(15_000);
      await joiner.goto(await pendingInvitationLink(portal, teammate));
      await joiner.getByLabel('Password').fill(TEST_PASSWORD);
      await joiner.getByRole('button', { name: 'Create account' }).click();
      await joiner.waitForURL(`${origin}/`);
      await page.goto(`${origin}/team`);
      await page.getByRole('link', { name: `Remove ${teammate}` }).click();
      await check(page, 'team-remove');
      // Another store invites the teammate, who opens the link signed in: the page that joins a second store.
      const other = await signUp(portal, { email: `other-owner-${backend.name}@example.com`, storeName: 'Other Pets' });
      const sent = await other.client.post('/team/invitations', { email: teammate, role: 'viewer' }, {}, '/team');
      assert.equal(sent.statusCode, 303, pageText(sent.body));
      await joiner.goto(await pendingInvitationLink(portal, teammate));
      await joiner.getByRole('button', { name: 'Accept the invitation' }).waitFor();
      await check(joiner, 'invitation');

      await page.goto(`${origin}/account/delete`);
      await check(page, 'account-delete');
      await page.getByLabel(/To confirm, type the store's name/).fill('not the name');
      await page.getByRole('button', { name: 'Delete this store' }).click();
      await page.getByText("That is not the store's name.").waitFor();
      await check(page, 'account-delete');
      await page.goto(`${origin}/settings`);
      await check(page, 'settings');
      // Two-step sign-in: set up with the key the page shows (as an app would read it), the recovery codes, then a sign-in elsewhere asks for a code.
      await page.getByRole('button', { name: 'Set up two-step sign-in' }).click();
      await check(page, 'two-step-set-up');
      const appKey = ((await page.locator('#two-step-key').textContent()) ?? '').replace(/\s+/g, '');
      const appCode = () => new TOTP({ secret: Secret.fromBase32(appKey), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: portal.clock.now().getTime() });
      await page.getByLabel('Code from the app').fill(appCode());
      await page.getByRole('button', { name: 'Turn on two-step sign-in' }).click();
      await page.getByRole('heading', { name: 'Your recovery codes' }).waitFor();
      assert.equal(await page.locator('#recovery-codes li').count(), 10);
      await check(page, 'two-step-codes');
      const elsewhere = await newPage({ viewport: LAPTOP });
      elsewhere.setDefaultTimeout(15_000);
      await elsewhere.goto(`${origin}/sign-in`);
      await elsewhere.getByLabel('Email').fill(email);
      await elsewhere.getByLabel('Password', { exact: true }).fill(TEST_PASSWORD);
      await elsewhere.getByRole('button', { name: 'Sign in', exact: true }).click();
      await elsewhere.waitForURL(`${origin}/sign-in/two-step`);
      await check(elsewhere, 'two-step');
      portal.clock.advance(30_000);
      await elsewhere.getByLabel('Code').fill(appCode());
      await elsewhere.getByRole('button', { name: 'Sign in' }).click();
      await elsewhere.waitForURL(`${origin}/`);
      portal.clock.advance(PAST_REAUTHENTICATION_WINDOW_MS);
      // Changing the team is a sensitive action: a session signed in over 10 minutes ago is asked to confirm it first.
      await page.goto(`${origin}/team`);
      await page.getByRole('link', { name: `Remove ${teammate}` }).click();
      await page.getByRole('button', { name: 'Remove from the team' }).click();
      await page.getByRole('heading', { name: 'Confirm it is you' }).waitFor();
      await check(page, 'confirm-identity');

      assert.deepEqual([...checked].sort(), TEMPLATES, 'every template of a page was checked');
      assert.deepEqual(violations, [], 'no axe violation on any page at either size');
    });
  });
}
