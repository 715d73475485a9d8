/** Failure notices in Chromium: an endpoint the delivery engine disabled after a real 410 is announced on every page until acknowledged. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { createWebhooksDispatcher } from '../../../src/composition.js';
import { testOutages } from '../../support/app.js';
import { assertAccessible, browserSkip, signUp, startBrowserPortal } from '../../support/browser.js';
import { capturingLogger } from '../../support/logs.js';
import { waitFor } from '../../support/process.js';
import { browserBackends } from '../../support/storage.js';
import { startHookReceiver } from '../../webhooks/support.js';

/** Loopback receivers allowed, over http; the engine polls often. */
const LOOPBACK_ENV = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8', WEBHOOK_POLL_INTERVAL_MS: '20' };
const GONE = 'The endpoint answered HTTP 410 Gone.';

/** The notices section of the page, if shown. */
const notices = (page: Page) => page.getByRole('region', { name: /^Webhook endpoints? disabled$/ });

for (const backend of browserBackends()) {
  describe(`portal failure notices in a browser: ${backend.name}`, { skip: browserSkip }, () => {
    test('when the engine disables an endpoint whose receiver answered 410, then every page shows the notice until it is acknowledged; enabling clears it and the next disabling is a new one', { timeout: 120_000 }, async (t) => {
      const { origin, newPage, portal } = await startBrowserPortal(t, backend, { env: LOOPBACK_ENV });
      const page = await newPage();
      // Every wait below is bounded.
      page.setDefaultTimeout(15_000);
      await signUp(page, origin, 'notices@example.com', 'Notice Pets');
      const user = await portal.storage.users.findByEmail('notices@example.com');
      assert.ok(user !== undefined);
      const receiver = await startHookReceiver(t, () => 410);
      const { endpoint } = await portal.services.webhooks.createEndpoint(user.accountId, { url: receiver.url, eventTypes: ['order.created'] });
      const { logger } = capturingLogger();
      const engine = createWebhooksDispatcher({ config: portal.config, storage: portal.storage, services: portal.services }, logger, testOutages(logger, portal.storage));
      engine.start();
      t.after(() => engine.stop());
      /** A new order: its delivery gets a 410 and the service disables the endpoint. */
      const disabledByA410 = async (deliveries: number) => {
        await portal.services.orderOperations.createOrder({ accountId: user.accountId });
        await waitFor(async () => (await portal.services.webhookNotices.unacknowledged(user.accountId)).length === 1, 'the endpoint to be disabled', 20_000);
        assert.equal(receiver.received.length, deliveries);
      };

      await page.goto(`${origin}/orders`);
      assert.equal(await notices(page).count(), 0, 'no notice while the endpoint works');
      await disabledByA410(1);

      // On every page: the account page and the orders page, each naming the endpoint, when and why, with its link.
      for (const path of ['/', '/orders']) {
        await page.goto(`${origin}${path}`);
        const shown = notices(page);
        await shown.waitFor();
        const text = await shown.innerText();
        assert.ok(text.includes(receiver.url), `${path}: the endpoint's URL`);
        assert.ok(text.includes(GONE), `${path}: why`);
        assert.match(text, /disabled by the service on \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/, `${path}: when`);
        assert.equal(await shown.getByRole('link', { name: `Review and enable ${receiver.url}` }).getAttribute('href'), `/webhooks/${endpoint.id}`);
      }
      await assertAccessible(page, '/orders with a failure notice');

      // The link leads to the endpoint's page, where enabling it again clears the notice.
      await notices(page).getByRole('link', { name: `Review and enable ${receiver.url}` }).click();
      await page.waitForURL(`${origin}/webhooks/${endpoint.id}`);
      await page.getByRole('button', { name: 'Enable endpoint' }).click();
      await page.waitForURL(`${origin}/webhooks?done=enabled`);
      assert.equal(await notices(page).count(), 0, 'enabled again: no notice');

      // It fails again: a new notice, on yet another page, until acknowledged there.
      await disabledByA410(2);
      await page.goto(`${origin}/keys`);
      await notices(page).waitFor();
      await page.getByRole('button', { name: `Acknowledge the notice about ${receiver.url}` }).click();
      await page.waitForURL(`${origin}/keys`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      assert.equal(await notices(page).count(), 0, 'gone from the page it was acknowledged on');
      for (const path of ['/', '/orders', `/webhooks/${endpoint.id}`]) {
        await page.goto(`${origin}${path}`);
        await page.getByRole('heading', { level: 1 }).waitFor();
        assert.equal(await notices(page).count(), 0, `gone from ${path}`);
      }
      // Acknowledged, not enabled: the endpoint stays disabled, and who acknowledged it is in the audit trail.
      assert.equal((await portal.services.webhooks.getEndpoint(user.accountId, endpoint.id)).status, 'disabled');
      const { entries } = await portal.services.audit.list(user.accountId);
      const acknowledged = entries.filter((entry) => entry.action === 'webhook_endpoint_notice_acknowledged');
      assert.deepEqual(
        acknowledged.map((entry) => [entry.actor, entry.target, entry.details]),
        [[{ kind: 'user', id: user.id }, { kind: 'webhook_endpoint', id: endpoint.id }, { reason: GONE }]],
      );
    });
  });
}
