/** The Logs page in Chromium: the requests a key made, filtered by the GET form, a request's detail with its Error record and what to do; axe at 1280 and 360 px. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { axeViolations, browserSkip, scrollsSideways, signUp, startBrowserPortal } from '../../support/browser.js';
import { accountOf } from '../../support/portal.js';
import { browserBackends } from '../../support/storage.js';

/** Every wait of these tests is bounded by this. */
const WAIT_MS = 15_000;

for (const backend of browserBackends()) {
  describe(`the Logs page in a browser: ${backend.name}`, { skip: browserSkip }, () => {
    test('when a key has made requests, then Logs lists them, the form filters them, a row opens the error answer with what to do, and axe finds nothing at 1280 and 360 px', { timeout: 120_000 }, async (t) => {
      const { portal, origin, apiOrigin, newPage } = await startBrowserPortal(t, backend);
      const page = await newPage();
      page.setDefaultTimeout(WAIT_MS);
      const email = `logs-${Date.now()}@example.com`;
      await signUp(page, origin, email, 'Logged Pets');
      const accountId = await accountOf(portal, email);
      const { secret } = await portal.services.apiKeys.createKey({ accountId, name: 'checkout' });
      const headers = { authorization: `Bearer ${secret}`, 'user-agent': 'checkout-service/1.0' };
      assert.equal((await fetch(`${apiOrigin}/v1/store/orders`, { headers })).status, 200);
      // The portal's tests run on a clock of their own: each request arrives a second after the last.
      portal.clock.advance(1000);
      assert.equal((await fetch(`${apiOrigin}/v1/store/orders/424242`, { method: 'DELETE', headers })).status, 404);
      await portal.services.requestLogRecorder.flush();

      await page.goto(`${origin}/logs`);
      const rows = page.locator('table tbody tr');
      assert.deepEqual(
        (await rows.allInnerTexts()).map((row) => row.replace(/\s+/g, ' ').trim()).map((row) => /(GET|DELETE) \S+ \d{3}/.exec(row)?.[0]),
        ['DELETE /v1/store/orders/424242 404', 'GET /v1/store/orders 200'],
      );
      assert.equal(await page.getByRole('link', { name: 'Logs', exact: true }).getAttribute('aria-current'), 'page');
      assert.deepEqual(await axeViolations(page), []);

      await page.getByLabel('Status').fill('4xx');
      await page.getByLabel('Method').selectOption('DELETE');
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.waitForURL(/\/logs\?status=4xx&method=DELETE/);
      assert.equal(await rows.count(), 1);
      await page.getByRole('link', { name: 'DELETE /v1/store/orders/424242' }).click();
      await page.waitForURL(/\/logs\/\d+$/);
      await page.getByRole('heading', { name: 'Error answer' }).waitFor();
      const detail = await page.locator('main').innerText();
      assert.match(detail, /"code": "order_not_found"/);
      assert.match(detail, /What to do: No order of this account has that id/);
      assert.match(detail, /checkout-service\/1\.0/);
      assert.ok(!detail.includes(secret) && !detail.includes(secret.slice(8)), 'the key is never shown');
      assert.deepEqual(await axeViolations(page), []);

      const phone = await newPage({ viewport: { width: 360, height: 740 } });
      phone.setDefaultTimeout(WAIT_MS);
      await phone.context().addCookies(await page.context().cookies());
      for (const url of [`${origin}/logs`, page.url(), `${origin}/logs?since=yesterday`]) {
        await phone.goto(url);
        assert.equal(await scrollsSideways(phone), false, `${url}: no sideways scrolling at 360 px`);
        assert.deepEqual(await axeViolations(phone), []);
      }
      await phone.getByRole('alert').getByText('From is not valid').waitFor();
      assert.equal(await phone.getByLabel('From (UTC)').getAttribute('aria-invalid'), 'true');
    });
  });
}
