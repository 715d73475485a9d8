/**
 * Issue 27, teammates and roles in a real browser: an owner invites a
 * viewer from the Team page, the invitation mail arrives at a real SMTP
 * server (sent by the server's mail engine), the invitee accepts it in a
 * second browser context and signs up; as a viewer they are refused a key
 * with a page in words; the owner removes them and their next page is the
 * sign-in page. axe-core finds no violation at all on the Team page, at
 * laptop and phone sizes, and neither scrolls sideways.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { assertAccessible, browserSkip, scrollsSideways, signUp, startBrowserPortalWithMail } from '../../support/browser.js';
import { TEST_PASSWORD } from '../../support/portal.js';
import { waitFor } from '../../support/process.js';
import { browserBackends } from '../../support/storage.js';

const WAIT_MS = 15_000;
const LAPTOP = { width: 1280, height: 800 };
const PHONE = { width: 360, height: 740 };

/** No axe violation of any impact on the page, and no sideways scrolling. */
async function assertFlawless(page: Page, what: string): Promise<void> {
  await assertAccessible(page, what);
  assert.equal(await scrollsSideways(page), false, `${what}: no sideways scrolling`);
}

for (const backend of browserBackends()) {
  describe(`team in a browser: ${backend.name}`, { skip: browserSkip }, () => {
    test('when an owner invites a viewer by mail, then the link accepted in a second browser joins them as a viewer, who is offered no key and refused one in words, and a removal signs them out', async (t) => {
      const { origin, newPage, smtp } = await startBrowserPortalWithMail(t, backend);

      const owner = await newPage({ viewport: LAPTOP });
      owner.setDefaultTimeout(WAIT_MS);
      await signUp(owner, origin, 'owner@example.com', 'Main Street Pets');
      await owner.locator('nav[aria-label="Main"]').getByRole('link', { name: 'Team', exact: true }).click();
      await owner.getByRole('heading', { name: 'Team', level: 1 }).waitFor();
      await owner.getByRole('textbox', { name: 'Email' }).fill('viewer@example.com');
      await owner.getByLabel('Role', { exact: true }).selectOption('viewer');
      await owner.getByRole('button', { name: 'Send invitation' }).click();
      await owner.getByText('The invitation is on its way').waitFor();
      await owner.getByRole('cell', { name: 'viewer@example.com', exact: true }).waitFor();
      await assertFlawless(owner, 'the Team page with a pending invitation at 1280 px');

      await waitFor(() => smtp.arrived.some((mail) => mail.to === 'viewer@example.com'), 'the invitation mail to arrive', WAIT_MS);
      const mail = smtp.arrived.find((arrived) => arrived.to === 'viewer@example.com');
      assert.equal(mail?.subject, 'You are invited to Main Street Pets on Store Orders');
      assert.match(mail?.text ?? '', /as Viewer/);
      const link = /(http\S+\/sign-up\?invite=[A-Za-z0-9_-]+)/.exec(mail?.text ?? '')?.[1];
      assert.ok(link?.startsWith(`${origin}/sign-up?invite=`), `the mail links to this portal: ${String(link)}`);

      const viewer = await newPage({ viewport: PHONE });
      viewer.setDefaultTimeout(WAIT_MS);
      await viewer.goto(link ?? '');
      await viewer.getByText('You are invited to join Main Street Pets as viewer.').waitFor();
      assert.equal(await viewer.getByRole('textbox', { name: 'Email' }).inputValue(), 'viewer@example.com', 'the address the invitation was sent to');
      await viewer.getByLabel('Password').fill(TEST_PASSWORD);
      await viewer.getByRole('button', { name: 'Create account' }).click();
      await viewer.waitForURL(`${origin}/`);
      await viewer.goto(`${origin}/team`);
      await viewer.getByText('viewer@example.com (you)').waitFor();
      assert.deepEqual(await viewer.locator('td[data-label="Role"]').allTextContents(), ['Owner', 'Viewer']);
      assert.equal(await viewer.getByRole('button', { name: 'Send invitation' }).count(), 0, 'a viewer is offered no team change');
      await assertFlawless(viewer, 'the Team page of a viewer at 360 px');

      await viewer.goto(`${origin}/keys`);
      await viewer.getByText('You are a viewer in Main Street Pets').waitFor();
      assert.equal(await viewer.getByRole('button', { name: 'Create key' }).count(), 0, 'a viewer is offered no key');
      await assertFlawless(viewer, 'the API keys page of a viewer at 360 px');
      const refused = await viewer.goto(`${origin}/keys/1/roll`);
      assert.equal(refused?.status(), 403);
      await viewer.getByRole('heading', { name: 'That action was refused' }).waitFor();
      await viewer.getByText('Your role in Main Street Pets is viewer: this needs a developer or an owner.').waitFor();
      assert.equal(await viewer.locator('#new-api-key').count(), 0, 'no key secret is shown');

      await owner.goto(`${origin}/team`);
      await owner.getByRole('link', { name: 'Remove viewer@example.com' }).click();
      await owner.getByRole('button', { name: 'Remove from the team' }).click();
      await owner.getByText('The member was removed').waitFor();
      await owner.setViewportSize(PHONE);
      await assertFlawless(owner, 'the Team page of an owner at 360 px');

      await viewer.goto(`${origin}/`);
      await viewer.waitForURL(`${origin}/sign-in`);
      await viewer.getByRole('heading', { name: 'Sign in' }).waitFor();
    });

    test('when an owner invites a developer by mail, then the developer creates an API key that works, and is refused team changes and deleting the store, in words', async (t) => {
      const { origin, apiOrigin, newPage, smtp } = await startBrowserPortalWithMail(t, backend);
      const owner = await newPage({ viewport: LAPTOP });
      owner.setDefaultTimeout(WAIT_MS);
      await signUp(owner, origin, 'owner@example.com', 'Main Street Pets');
      await owner.goto(`${origin}/team`);
      await owner.getByRole('textbox', { name: 'Email' }).fill('developer@example.com');
      await owner.getByLabel('Role', { exact: true }).selectOption('developer');
      await owner.getByRole('button', { name: 'Send invitation' }).click();
      await owner.getByText('The invitation is on its way').waitFor();
      await waitFor(() => smtp.arrived.some((mail) => mail.to === 'developer@example.com'), 'the invitation mail to arrive', WAIT_MS);
      const link = /(http\S+\/sign-up\?invite=[A-Za-z0-9_-]+)/.exec(smtp.arrived.find((mail) => mail.to === 'developer@example.com')?.text ?? '')?.[1] ?? '';

      const developer = await newPage({ viewport: PHONE });
      developer.setDefaultTimeout(WAIT_MS);
      await developer.goto(link);
      await developer.getByText('You are invited to join Main Street Pets as developer.').waitFor();
      await developer.getByLabel('Password').fill(TEST_PASSWORD);
      await developer.getByRole('button', { name: 'Create account' }).click();
      await developer.waitForURL(`${origin}/`);
      await developer.goto(`${origin}/keys`);
      await developer.getByLabel('Key name').fill('Checkout');
      await developer.getByRole('button', { name: 'Create key' }).click();
      const key = (await developer.getByLabel('New API key', { exact: true }).inputValue()).trim();
      await assertFlawless(developer, 'the API keys page of a developer with a new key at 360 px');
      const listed = await fetch(`${apiOrigin}/v1/store/orders`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(listed.status, 200, "the developer's key lists the store's orders");
      await developer.goto(`${origin}/keys`);
      assert.deepEqual(await developer.locator('td[data-label="Name"]').allTextContents(), ['Checkout']);
      assert.equal(await developer.getByLabel('New API key', { exact: true }).count(), 0, 'the secret is shown once');

      await developer.goto(`${origin}/team`);
      await developer.getByText('developer@example.com (you)').waitFor();
      assert.equal(await developer.getByRole('button', { name: 'Send invitation' }).count(), 0, 'a developer is offered no team change');
      const refused = await developer.goto(`${origin}/account/delete`);
      assert.equal(refused?.status(), 403);
      await developer.getByText('Your role in Main Street Pets is developer: this needs an owner.').waitFor();
      await owner.goto(`${origin}/keys`);
      assert.deepEqual(await owner.locator('td[data-label="Name"]').allTextContents(), ['Checkout'], "the owner sees the developer's key");
    });
  });
}
