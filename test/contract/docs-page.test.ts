import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { chromium } from 'playwright-core';
import { createTestApp } from '../support/app.js';
import { sqliteBackend } from '../support/storage.js';
import { testConfig } from '../support/container.js';

const CHROMIUM = '/usr/bin/chromium';
// CI installs Debian's chromium (.ci/run), so there the test must run; only a
// developer machine without it may skip, and it says so.
const skip =
  !existsSync(CHROMIUM) && process.env.CI === undefined
    ? `${CHROMIUM} is absent (install it: apt-get install -y chromium); this test runs whenever CI is set`
    : false;

test('when the docs page is opened in a browser, then it shows both orders operations and the deprecated pet lookup, offers the v2 (beta) document, and every request stays on our server', { skip }, async (t) => {
  const { app } = await createTestApp(t, sqliteBackend);
  const origin = await app.listen({ host: '127.0.0.1', port: 0 });

  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'],
  });
  t.after(() => browser.close());
  const page = await browser.newPage();
  const requested: string[] = [];
  page.on('request', (request) => {
    requested.push(request.url());
  });
  const failed: string[] = [];
  page.on('requestfailed', (request) => {
    failed.push(`${request.url()} ${request.failure()?.errorText ?? ''}`);
  });

  const response = await page.goto(`${origin}/docs`, { waitUntil: 'networkidle' });
  assert.equal(response?.status(), 200);

  const listOrders = page.locator('.opblock-get', { hasText: '/store/orders' }).filter({ hasNotText: '{orderId}' });
  const cancelOrder = page.locator('.opblock-delete', { hasText: '/store/orders/{orderId}' });
  const getPet = page.locator('.opblock-deprecated', { hasText: '/pets/{petId}' });
  await listOrders.first().waitFor();
  assert.equal(await listOrders.count(), 1);
  assert.equal(await cancelOrder.count(), 1);
  assert.equal(await getPet.count(), 1);
  assert.match(await listOrders.innerText(), /listOrders/);
  assert.match(await cancelOrder.innerText(), /cancelOrder/);
  assert.match(await getPet.innerText(), /getPet/);

  // The v2 (beta) document is offered beside v1.
  await page.selectOption('select#select', { label: 'v2 (beta)' });
  const listOrdersV2 = page.locator('.opblock-get', { hasText: 'listOrdersV2' });
  await listOrdersV2.first().waitFor();
  assert.equal(await listOrdersV2.count(), 1);
  assert.equal(await page.locator('.opblock-get', { hasText: 'getOrderV2' }).count(), 1);
  assert.equal(await page.locator('.opblock-delete', { hasText: 'cancelOrderV2' }).count(), 1);
  assert.equal(await page.locator('.opblock', { hasText: 'getPet' }).count(), 0);

  const offHost = requested.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:'));
  assert.deepEqual(offHost, [], 'every script, style, image and the documents come from our own server');
  assert.deepEqual(failed, []);
  assert.ok(requested.includes(`${origin}/openapi.json`), 'the page loaded the v1 document from our server');
  assert.ok(requested.includes(`${origin}/v2/openapi.json`), 'the page loaded the v2 document from our server');
});

test('when a reader opens the docs page of a server started without PUBLIC_BASE_URL and tries listOrders with a key, then the request goes to this server and answers 200', { skip }, async (t) => {
  const { app, services, tenant } = await createTestApp(t, sqliteBackend);
  const origin = await app.listen({ host: '127.0.0.1', port: 0 });
  const { account, key } = await tenant();
  await services.orderOperations.createOrder({ accountId: account.id, id: 1001n, petId: 42n, quantity: 2 });

  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });
  t.after(() => browser.close());
  const page = await browser.newPage();
  const blocked: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') blocked.push(message.text());
  });
  await page.goto(`${origin}/docs`, { waitUntil: 'networkidle' });

  await page.locator('button.authorize').first().click();
  await page.locator('.modal-ux input[type="text"], .modal-ux input[type="password"]').first().fill(key);
  await page.locator('.modal-ux button.authorize').click();
  await page.locator('.modal-ux button.btn-done').click();

  const listOrders = page.locator('.opblock-get', { hasText: 'listOrders' });
  await listOrders.locator('.opblock-summary').click();
  await listOrders.locator('button.try-out__btn').click();
  const answered = page.waitForResponse((response) => response.url().startsWith(`${origin}/v1/store/orders`));
  await listOrders.locator('button.execute').click();
  const response = await answered;
  assert.equal(response.status(), 200);
  const status = listOrders.locator('.live-responses-table tbody .response-col_status').first();
  await status.waitFor();
  assert.match(await status.innerText(), /^200/);
  assert.match(await listOrders.locator('.live-responses-table').innerText(), /1001/);
  assert.deepEqual(blocked, [], 'no request was blocked (CSP) or failed');
});

test('when one address loads the docs page more often than the per-address rate limit allows, then its files and documents are never refused (429) and spend nothing', async (t) => {
  const limits = { ...testConfig().limits, rateLimit: { requests: 2, windowSeconds: 60 } };
  const { app } = await createTestApp(t, sqliteBackend, { limits });
  const files = ['/docs', '/docs/', '/docs/static/index.html', '/docs/static/swagger-initializer.js', '/docs/static/swagger-ui.css', '/docs/static/swagger-ui-bundle.js', '/openapi.json', '/v2/openapi.json'];
  for (let round = 0; round < 3; round += 1) {
    for (const url of files) {
      const response = await app.inject({ method: 'GET', url });
      assert.ok(response.statusCode === 200 || response.statusCode === 302, `${url} (round ${round + 1}): ${response.statusCode}`);
      assert.equal(response.headers.ratelimit, undefined, `${url} spends no rate limit`);
    }
  }
  // The same address is still limited elsewhere: the exemption is the docs page's alone.
  const statuses = [];
  for (let i = 0; i < 3; i += 1) statuses.push((await app.inject({ method: 'GET', url: '/no-such-page' })).statusCode);
  assert.deepEqual(statuses, [404, 404, 429]);
});

test('when /docs/ is sent a method it does not define, then 405 names every method it answers: GET and HEAD', async (t) => {
  const { app } = await createTestApp(t, sqliteBackend);
  assert.equal((await app.inject({ method: 'GET', url: '/docs/' })).statusCode, 200);
  for (const url of ['/docs', '/docs/']) {
    const response = await app.inject({ method: 'POST', url });
    assert.equal(response.statusCode, 405, url);
    assert.equal(response.headers.allow, 'GET, HEAD', url);
  }
});
