import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { chromium } from 'playwright-core';
import { createTestApp } from '../support/app.js';
import { sqliteBackend } from '../support/storage.js';

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
