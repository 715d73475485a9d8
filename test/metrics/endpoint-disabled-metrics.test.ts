import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createTenant } from '../support/quickstart.js';
import { startServer, waitFor } from '../support/process.js';
import { httpBackends } from '../support/storage.js';
import { testConfig, testServices } from '../support/container.js';
import { startHookReceiver } from '../webhooks/support.js';
import { databaseUrlOf, scrape, total } from './scrape.js';

const WEBHOOKS_ENV = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8', WEBHOOK_POLL_INTERVAL_MS: '20' };

for (const backend of httpBackends()) {
  describe(`webhook endpoints disabled metric (${backend.name})`, () => {
    test('when a cancel over HTTP is delivered to a loopback receiver that answers 410, then the endpoint is disabled with a notice due, and the scrape counts one endpoint disabled as gone', { timeout: 60_000 }, async (t) => {
      const { config, storage } = await backend.freshDatabase(t);
      const services = testServices(storage, { config: testConfig(WEBHOOKS_ENV) });
      const { account, auth } = await createTenant(services, 'Gone away');
      const order = await services.orderOperations.createOrder({ accountId: account.id, petId: 1n, quantity: 1 });
      const gone = await startHookReceiver(t, () => 410);
      const server = await startServer(t, { DATABASE_URL: databaseUrlOf(config), ...WEBHOOKS_ENV });
      const metricsUrl = server.metricsUrl;
      assert.ok(metricsUrl);
      const disabled = async (reason: string) => total(await scrape(metricsUrl), 'store_webhook_endpoints_disabled_total', { reason });
      // Both series from the start, at 0: an alert on their increase needs them.
      assert.deepEqual([await disabled('gone'), await disabled('failing')], [0, 0]);

      const json = { ...auth, 'content-type': 'application/json' };
      const created = await fetch(`${server.baseUrl}/v2/webhook-endpoints`, { method: 'POST', headers: json, body: JSON.stringify({ url: gone.url, eventTypes: ['order.cancelled'] }) });
      assert.equal(created.status, 201);
      const { id: endpointId } = (await created.json()) as { id: string };
      assert.equal((await fetch(`${server.baseUrl}/v1/store/orders/${order.id}`, { method: 'DELETE', headers: auth })).status, 204);

      await waitFor(async () => (await disabled('gone')) === 1, 'the scrape to count the disabled endpoint', 20_000);
      assert.equal(gone.received.length, 1, 'one attempt: a 410 is never retried');
      assert.equal(await disabled('failing'), 0);
      const endpoint = await services.webhooks.getEndpoint(account.id, endpointId);
      assert.deepEqual([endpoint.status, endpoint.disabledReason], ['disabled', 'The endpoint answered HTTP 410 Gone.']);
      const [notice] = await services.webhookNotices.unacknowledged(account.id);
      assert.deepEqual([notice?.endpointId, notice?.url, notice?.reason], [endpointId, gone.url, 'The endpoint answered HTTP 410 Gone.']);
      const { entries } = await services.audit.list(account.id);
      assert.ok(entries.some((entry) => entry.action === 'webhook_endpoint_disabled' && entry.actor.kind === 'system' && entry.target?.id === endpointId));
    });
  });
}
