/** The portal's weight and layout in Chromium: requests per page, a busy user's minute, tables and dates on a phone and a laptop. */
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { browserSkip, signUp, startBrowserPortal, type BrowserPortal } from '../../support/browser.js';
import { testConfig } from '../../support/container.js';
import { browserBackends } from '../../support/storage.js';

/** The configuration's own per-address budget (RATE_LIMIT_REQUESTS unset), which test portals otherwise turn off. */
const DEFAULT_BUDGET = { RATE_LIMIT_REQUESTS: String(testConfig().limits.rateLimit.requests) };
/** Loopback allowed, so that the webhooks page can add an endpoint (nothing is delivered). */
const LOOPBACK_ENV = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8' };
const SIGNED_IN_PAGES = ['/', '/keys', '/orders', '/webhooks', '/audit', '/settings'];

/**
 * The URLs of the requests that reach the portal's server from now on (what
 * counts toward a budget, cache hits excluded), and how each was answered
 * (status and Cache-Control: what decides whether the browser may keep it).
 */
function serverRequests({ portal }: BrowserPortal): { reached: string[]; answers: string[] } {
  const reached: string[] = [];
  const answers: string[] = [];
  portal.app.server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    reached.push(request.url ?? '');
    response.once('finish', () => answers.push(`${request.url ?? ''} ${response.statusCode} ${String(response.getHeader('cache-control'))}`));
  });
  return { reached, answers };
}

/** Loads `path` and waits until the page's requests have settled; returns the URLs the browser asked for, from its cache or not. */
async function load(page: Page, url: string): Promise<string[]> {
  const asked: string[] = [];
  const listener = (request: { url(): string }) => asked.push(request.url());
  page.on('request', listener);
  await page.goto(url, { waitUntil: 'networkidle' });
  page.off('request', listener);
  return asked;
}

/**
 * Where every table's actions are on a page as it is now, evaluated in the
 * page (a string: the test files are type-checked without the DOM's types):
 * each action scrolled into view, and what of it lies outside the viewport.
 */
const ACTIONS_OFF_SCREEN = `(() => {
  const off = [];
  for (const action of document.querySelectorAll('td.actions a, td.actions button')) {
    action.scrollIntoView({ block: 'center', inline: 'nearest' });
    const box = action.getBoundingClientRect();
    if (box.width === 0 || box.left < 0 || box.right > window.innerWidth) off.push(action.textContent.trim() + ' ' + Math.round(box.left) + '..' + Math.round(box.right));
  }
  for (const wrap of document.querySelectorAll('.table-wrap')) if (wrap.scrollWidth > wrap.clientWidth) off.push('a table wider than its box');
  return off;
})()`;

/** The text of every date cell that takes more than `lines` lines. */
const wrappedDates = (lines: number) => `(() => [...document.querySelectorAll('td.date, td time')].filter((cell) => {
  const range = document.createRange();
  range.selectNodeContents(cell);
  return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size > ${lines};
}).map((cell) => cell.textContent))()`;

/** How each text-like field, select and textarea of the page is drawn (border, corners, padding, type size, width rule): one look is one string. */
const FIELD_LOOKS = `(() => [...new Set([...document.querySelectorAll('main input:not([type=hidden]):not([type=checkbox]):not([type=radio]), main select, main textarea')].map((field) => {
  const style = getComputedStyle(field);
  return [style.borderTopWidth, style.borderTopStyle, style.borderTopColor, style.borderRadius, style.paddingLeft, style.fontSize, style.fontFamily].join(' ');
}))])()`;

for (const backend of browserBackends()) {
  describe(`portal layout in a browser: ${backend.name}`, { skip: browserSkip }, () => {
    test('when a page is loaded with an empty cache, then it costs at most 4 requests; every page after costs 1 (the script and style sheet come from the cache)', async (t) => {
      const started = await startBrowserPortal(t, backend);
      const { origin, newPage } = started;
      const { reached, answers } = serverRequests(started);
      const page = await newPage();
      const first = await load(page, `${origin}/sign-in`);
      assert.ok(first.length <= 4, `first load: ${first.join(', ')}`);
      assert.deepEqual(first.map((url) => new URL(url).pathname.replace(/-[0-9a-f]{16}\./, '-<hash>.')), ['/sign-in', '/assets/portal-<hash>.css', '/assets/portal-<hash>.js']);
      assert.equal(reached.length, 3);

      reached.length = 0;
      await load(page, `${origin}/sign-up`);
      assert.deepEqual(reached, ['/sign-up'], `the next page: only the page reaches the server (answered so far: ${answers.join('; ')})`);
      await signUp(page, origin, 'light@example.com', 'Light Pets');
      for (const path of [...SIGNED_IN_PAGES, '/keys']) {
        reached.length = 0;
        await load(page, `${origin}${path}`);
        assert.deepEqual(reached, [path], `${path}: only the page reaches the server`);
      }
    });

    test('when a busy user browses fifty pages in a minute with the default budget, then none shows a 429', async (t) => {
      const { origin, newPage } = await startBrowserPortal(t, backend, { env: DEFAULT_BUDGET });
      const page = await newPage();
      const statuses: number[] = [];
      page.on('response', (response) => statuses.push(response.status()));
      await signUp(page, origin, 'busy@example.com', 'Busy Pets');
      for (let visit = 0; visit < 50; visit++) {
        const path = SIGNED_IN_PAGES[visit % SIGNED_IN_PAGES.length] ?? '/';
        // Through the navigation, as a person clicks.
        await page.locator('nav[aria-label="Main"]').getByRole('link', { name: { '/': 'Account', '/keys': 'API keys', '/orders': 'Orders', '/webhooks': 'Webhooks', '/audit': 'Audit trail', '/settings': 'Settings' }[path] ?? '', exact: true }).click();
        await page.waitForURL(`${origin}${path}`);
        assert.equal(await page.locator('nav a[aria-current="page"]').getAttribute('href'), path, `visit ${visit + 1}: the current page is marked`);
      }
      assert.deepEqual(statuses.filter((status) => status === 429), []);
      assert.ok(statuses.length >= 50);
    });

    test('when every table is shown 360 px wide, then every action (the webhooks Delete button too) is on the screen and no date takes three lines; 1280 px wide, no date wraps; every field looks alike', async (t) => {
      const { origin, apiOrigin, newPage, portal } = await startBrowserPortal(t, backend, { env: LOOPBACK_ENV });
      for (const viewport of [{ width: 360, height: 740 }, { width: 1280, height: 800 }]) {
        const page = await newPage({ viewport });
        const email = `tables-${viewport.width}@example.com`;
        await signUp(page, origin, email, 'Tables Pets');
        await page.goto(`${origin}/webhooks`);
        await page.getByLabel('Endpoint URL').fill(`http://127.0.0.1:9/a/rather/long/path/for/a/webhook/receiver/${viewport.width}`);
        await page.getByRole('button', { name: 'Add endpoint' }).click();
        await page.getByLabel('Signing secret').waitFor();
        await page.goto(`${origin}/keys`);
        await page.getByLabel('Key name').fill('Till in the shop');
        await page.getByRole('button', { name: 'Create key' }).click();
        await page.getByLabel('New API key', { exact: true }).waitFor();
        const user = await portal.storage.users.findByEmail(email);
        await portal.services.orderOperations.createOrder({ accountId: user?.accountId ?? 0, id: BigInt(viewport.width), petId: 7n, quantity: 1, shipDate: '2026-12-01T10:00:00Z' });
        // A pending invitation (the Team page's table), a request log (Logs), a delivery (an endpoint's page), a second session (Settings).
        await page.goto(`${origin}/team`);
        await page.getByRole('textbox', { name: 'Email' }).fill(`teammate-${viewport.width}@example.com`);
        await page.getByRole('button', { name: 'Send invitation' }).click();
        await page.getByText('The invitation is on its way').waitFor();
        const key = await portal.services.apiKeys.createKey({ accountId: user?.accountId ?? 0, name: 'checkout' });
        assert.equal((await fetch(`${apiOrigin}/v1/store/orders/${viewport.width}`, { method: 'DELETE', headers: { authorization: `Bearer ${key.secret}` } })).status, 204);
        await portal.services.requestLogRecorder.flush();
        await portal.storage.webhooks.claimDue({ claimant: 'engine', now: new Date(Date.now() + 60_000).toISOString(), claimedUntil: new Date(Date.now() + 120_000).toISOString(), limit: 10 });
        const [endpoint] = (await portal.services.webhooks.listEndpoints(user?.accountId ?? 0, undefined, 1)).items;
        const looks = new Set<string>();
        for (const path of ['/webhooks', '/keys', '/orders', '/audit', '/team', '/logs', `/webhooks/${endpoint?.id ?? ''}`, '/settings', '/']) {
          await page.goto(`${origin}${path}`);
          assert.deepEqual(await page.evaluate(ACTIONS_OFF_SCREEN), [], `${path} at ${viewport.width}px: every action on the screen`);
          assert.deepEqual(await page.evaluate(wrappedDates(viewport.width > 600 ? 1 : 2)), [], `${path} at ${viewport.width}px: no date wraps${viewport.width > 600 ? '' : ' into three lines'}`);
          for (const look of (await page.evaluate(FIELD_LOOKS)) as string[]) looks.add(look);
        }
        assert.equal(looks.size, 1, `every field is drawn alike at ${viewport.width}px: ${[...looks].join(' | ')}`);
        await page.goto(`${origin}/webhooks`);
        const remove = page.getByRole('link', { name: /^Delete http:/ });
        await remove.scrollIntoViewIfNeeded();
        const box = await remove.boundingBox();
        assert.ok(box !== null && box.x >= 0 && box.x + box.width <= viewport.width, `Delete at ${viewport.width}px: ${JSON.stringify(box)}`);
        await remove.click();
        await page.getByRole('button', { name: 'Delete endpoint' }).waitFor();
      }
    });
  });
}
