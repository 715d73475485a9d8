/** Usage at a glance on the home page in Chromium: the charts drawn without JavaScript, their summaries and table, axe at 1280 and 360 px. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { axeViolations, browserSkip, scrollsSideways, signUp, startBrowserPortal } from '../../support/browser.js';
import { accountOf } from '../../support/portal.js';
import { browserBackends } from '../../support/storage.js';

/** Every wait of these tests is bounded by this. */
const WAIT_MS = 15_000;

for (const backend of browserBackends()) {
  describe(`usage at a glance in a browser: ${backend.name}`, { skip: browserSkip }, () => {
    test('when a key has made requests, then the home page shows their charts and summaries, with and without JavaScript, and axe finds nothing at 1280 and 360 px', { timeout: 120_000 }, async (t) => {
      const { portal, origin, apiOrigin, newPage } = await startBrowserPortal(t, backend);
      const page = await newPage();
      page.setDefaultTimeout(WAIT_MS);
      const email = `usage-${Date.now()}@example.com`;
      await signUp(page, origin, email, 'Busy Pets');
      const accountId = await accountOf(portal, email);
      const { secret } = await portal.services.apiKeys.createKey({ accountId, name: 'checkout' });
      const headers = { authorization: `Bearer ${secret}` };
      for (let i = 0; i < 3; i++) assert.equal((await fetch(`${apiOrigin}/v1/store/orders`, { headers })).status, 200);
      assert.equal((await fetch(`${apiOrigin}/v1/store/orders/424242`, { method: 'DELETE', headers })).status, 404);
      await portal.services.requestLogRecorder.flush();

      await page.goto(`${origin}/`);
      const usage = page.getByRole('region', { name: 'Usage at a glance' });
      await usage.getByRole('heading', { name: 'Last 24 hours' }).waitFor();
      assert.equal(await page.locator('figure.chart svg').count(), 8);
      assert.equal(await page.locator('#usage-day-requests figcaption').innerText(), 'Requests by status. 4 requests: 3 2xx, 0 3xx, 1 4xx, 0 5xx.');
      assert.equal(await page.locator('#usage-fortnight-errors figcaption').innerText(), 'Error rate. Error rate 25 %: 1 of 4 requests answered 4xx or 5xx.');
      assert.ok((await page.locator('#usage-day-requests rect').count()) >= 2, 'the current hour is drawn as a bar of two segments');
      await usage.getByText('The numbers, hour by hour').click();
      await usage.getByRole('table', { name: /Last 24 hours/ }).waitFor();
      assert.deepEqual(await axeViolations(page), []);

      const phone = await newPage({ viewport: { width: 360, height: 740 } });
      phone.setDefaultTimeout(WAIT_MS);
      await phone.context().addCookies(await page.context().cookies());
      await phone.goto(`${origin}/`);
      assert.equal(await scrollsSideways(phone), false, 'no sideways scrolling at 360 px');
      await phone.getByText('The numbers, day by day').click();
      assert.equal(await scrollsSideways(phone), false, 'no sideways scrolling at 360 px, the table open');
      assert.deepEqual(await axeViolations(phone), []);

      const plain = await newPage({ javaScriptEnabled: false });
      plain.setDefaultTimeout(WAIT_MS);
      await plain.context().addCookies(await page.context().cookies());
      await plain.goto(`${origin}/`);
      assert.equal(await plain.locator('#usage-day-latency svg polyline').count(), 2, 'p50 and p95 drawn without JavaScript');
      assert.match(await plain.locator('#usage-day-latency figcaption').innerText(), /^Latency\. p50 ≤ \d+ ms, p95 ≤ \d+ ms\.$/);
    });
  });
}
