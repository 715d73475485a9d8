/** The order page in Chromium: reached from the Orders list, its requests, events and deliveries side by side, back from a request's page; axe at 1280 and 360 px. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { axeViolations, browserSkip, scrollsSideways, signUp, startBrowserPortal } from '../../support/browser.js';
import { accountOf } from '../../support/portal.js';
import { storageBackends } from '../../support/storage.js';

/** Every wait of these tests is bounded by this. */
const WAIT_MS = 15_000;

const [sqlite] = storageBackends();

describe('the order page in a browser: sqlite', { skip: browserSkip }, () => {
  test('when an order placed on the portal was touched through the API, then its page shows its requests beside its events and deliveries, links both ways with Logs, and axe finds nothing at 1280 and 360 px', { timeout: 120_000 }, async (t) => {
    assert.ok(sqlite !== undefined);
    const { portal, origin, apiOrigin, newPage } = await startBrowserPortal(t, sqlite);
    const page = await newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(WAIT_MS);
    const email = `order-page-${Date.now()}@example.com`;
    await signUp(page, origin, email, 'Tracked Pets');
    const accountId = await accountOf(portal, email);
    await portal.storage.webhooks.createEndpoint(
      { id: `we_${'b'.repeat(32)}`, accountId, url: 'https://hooks.example.com/a-rather-long-path/for/the/order/events', eventTypes: null, description: null, rateLimit: null, sealedSecret: 'sealed', createdAt: new Date().toISOString() },
      { maxPerAccount: 10 },
    );

    await page.goto(`${origin}/orders`);
    await page.getByLabel('Pet ID', { exact: true }).last().fill('9223372036854775807');
    await page.getByLabel('Quantity').fill('2');
    await page.getByRole('button', { name: 'Place order' }).click();
    await page.waitForURL(/\/orders\?placed=\d+$/);
    const id = /placed=(\d+)$/.exec(page.url())?.[1] ?? '';

    const { secret } = await portal.services.apiKeys.createKey({ accountId, name: 'checkout' });
    const headers = { authorization: `Bearer ${secret}`, 'user-agent': 'checkout-service/1.0' };
    assert.equal((await fetch(`${apiOrigin}/v2/store/orders/${id}`, { headers })).status, 200);
    portal.clock.advance(1000);
    assert.equal((await fetch(`${apiOrigin}/v1/store/orders/${id}`, { method: 'DELETE', headers })).status, 204);
    await portal.services.requestLogRecorder.flush();
    const [claimed] = await portal.storage.webhooks.claimDue({ claimant: 'engine', now: new Date(Date.now() + 60_000).toISOString(), claimedUntil: new Date(Date.now() + 120_000).toISOString(), limit: 1 });
    assert.ok(claimed !== undefined);
    await portal.storage.webhooks.markAttemptFailed({ id: claimed.id, claimant: 'engine', at: new Date().toISOString(), attempt: 1, statusCode: 500, durationMs: 40, error: 'The endpoint answered HTTP 500.', retryAt: new Date(Date.now() + 600_000).toISOString() });

    await page.getByRole('link', { name: `Order ${id}: its history` }).click();
    await page.waitForURL(`${origin}/orders/${id}`);
    await page.getByRole('heading', { name: `Order ${id}`, level: 1 }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'Orders', exact: true }).getAttribute('aria-current'), 'true');
    const requests = page.getByRole('table', { name: `Requests that named order ${id}, newest first` }).locator('tbody tr');
    assert.deepEqual(
      (await requests.allInnerTexts()).map((row) => /(GET|DELETE) \S+ \d{3}/.exec(row.replace(/\s+/g, ' '))?.[0]),
      [`DELETE /v1/store/orders/${id} 204`, `GET /v2/store/orders/${id} 200`],
    );
    assert.deepEqual(await page.locator('.history-event h3 code').allInnerTexts(), ['order.created', 'order.cancelled']);
    const events = page.getByRole('heading', { name: 'Events and webhook deliveries' });
    const requestsHeading = page.getByRole('heading', { name: 'Requests', exact: true });
    const [left, right] = [await requestsHeading.boundingBox(), await events.boundingBox()];
    assert.ok(left !== null && right !== null && left.x < right.x && Math.abs(left.y - right.y) < 5, 'requests and events side by side on a laptop');
    const main = await page.locator('main').innerText();
    assert.match(main, /HTTP 500: The endpoint answered HTTP 500\./);
    assert.ok(!main.includes(secret) && !main.includes(secret.slice(8)), 'the key is never shown');
    assert.deepEqual(await axeViolations(page), []);

    await page.getByRole('link', { name: `DELETE /v1/store/orders/${id}` }).click();
    await page.waitForURL(/\/logs\/\d+$/);
    const logUrl = page.url();
    await page.getByRole('link', { name: `Order ${id}: its requests, events and webhook deliveries` }).click();
    await page.waitForURL(`${origin}/orders/${id}`);

    const phone = await newPage({ viewport: { width: 360, height: 740 } });
    phone.setDefaultTimeout(WAIT_MS);
    await phone.context().addCookies(await page.context().cookies());
    for (const url of [`${origin}/orders/${id}`, `${origin}/orders`, logUrl]) {
      await phone.goto(url);
      assert.equal(await scrollsSideways(phone), false, `${url}: no sideways scrolling at 360 px`);
      assert.deepEqual(await axeViolations(phone), []);
    }
    await phone.goto(`${origin}/orders/${id}`);
    const [top, below] = [await phone.getByRole('heading', { name: 'Requests', exact: true }).boundingBox(), await phone.getByRole('heading', { name: 'Events and webhook deliveries' }).boundingBox()];
    assert.ok(top !== null && below !== null && top.y < below.y, 'one above the other on a phone');
    await phone.goto(`${origin}/orders/999999`);
    await phone.getByRole('heading', { name: 'Page not found' }).waitFor();
    assert.deepEqual(await axeViolations(phone), []);
  });
});
