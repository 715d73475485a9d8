import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createTenant, eventually } from '../support/quickstart.js';
import { startServer } from '../support/process.js';
import { testBackends } from '../support/storage.js';
import { testServices } from '../support/container.js';
import { startHookReceiver } from '../webhooks/support.js';
import { databaseUrlOf, scrape, total, type Sample } from './scrape.js';

const WEBHOOKS_ENV = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8', WEBHOOK_POLL_INTERVAL_MS: '20' };

for (const backend of testBackends()) {
  describe(`delivery metrics (${backend.name})`, () => {
    test('when webhooks and messages are delivered to loopback receivers that accept, refuse and fail, then the scrape counts each outcome by kind, observes the lag of each attempt and shows how long a held-back delivery has waited', async (t) => {
      const { config, storage } = await backend.freshDatabase(t);
      const services = testServices(storage);
      const { account, auth } = await createTenant(services, 'Delivered');
      const accepting = await startHookReceiver(t, () => 204);
      // 410: "never again": given up at once, no retry.
      const gone = await startHookReceiver(t, () => 410);
      // Fails the first event for an hour (Retry-After), so the order's next event waits behind it, due but undelivered.
      const stalling = await startHookReceiver(t, (_request, index) => (index === 0 ? { status: 503, headers: { 'retry-after': '3600' } } : 204));
      const failingMessages = await startHookReceiver(t, () => 500);
      const server = await startServer(t, {
        DATABASE_URL: databaseUrlOf(config),
        ...WEBHOOKS_ENV,
        MESSAGES_WEBHOOK_URL: failingMessages.url,
        MESSAGES_MAX_ATTEMPTS: '2',
        MESSAGES_RETRY_BASE_MS: '10',
      });
      assert.ok(server.metricsUrl && server.quickstartUrl);
      const metricsUrl = server.metricsUrl;

      const before = await scrape(metricsUrl);
      for (const kind of ['messages', 'webhooks']) {
        for (const outcome of ['sent', 'failed', 'given_up']) assert.equal(total(before, 'store_deliveries_total', { kind, outcome }), 0, `${kind} ${outcome} starts at 0`);
        assert.equal(total(before, 'store_delivery_oldest_undelivered_seconds', { kind }), 0, `no ${kind} waiting yet`);
      }

      for (const receiver of [accepting, gone, stalling]) {
        const created = await fetch(`${server.baseUrl}/v2/webhook-endpoints`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ url: receiver.url, eventTypes: ['order.created', 'order.cancelled'] }),
        });
        assert.equal(created.status, 201, await created.text());
      }
      const order = await services.orders.createOrder({ accountId: account.id, petId: 1n, quantity: 1 });
      assert.equal((await fetch(`${server.baseUrl}/v2/store/orders/${order.id}`, { method: 'DELETE', headers: auth })).status, 204);
      const posted = await fetch(`${server.quickstartUrl}/messages`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'never arrives' }),
      });
      assert.equal(posted.status, 202);

      const settled = (samples: readonly Sample[], kind: string) =>
        ['sent', 'failed', 'given_up'].map((outcome) => total(samples, 'store_deliveries_total', { kind, outcome }));
      const samples = await eventually(async () => {
        const scraped = await scrape(metricsUrl);
        const done =
          settled(scraped, 'webhooks').join() === '2,1,1' &&
          settled(scraped, 'messages').join() === '0,1,1' &&
          total(scraped, 'store_delivery_oldest_undelivered_seconds', { kind: 'webhooks' }) > 0;
        return done ? scraped : undefined;
      }, 50);
      // Webhooks: both events to the accepting endpoint; the gone one given up (its endpoint then disabled, its cancel held);
      // the stalling one failed once, due again in an hour, with the order's cancel held back behind it.
      assert.equal(accepting.received.length, 2);
      assert.equal(gone.received.length, 1);
      assert.equal(stalling.received.length, 1);
      // Messages: two attempts, the first retried, the second given up.
      assert.equal(failingMessages.received.length, 2);
      assert.equal(total(samples, 'store_message_delivery_attempts_total', { outcome: 'failed' }), 2);
      // One lag observation per claimed attempt, each no longer than the test has run.
      assert.equal(total(samples, 'store_delivery_lag_seconds_count', { kind: 'webhooks' }), 4);
      assert.equal(total(samples, 'store_delivery_lag_seconds_count', { kind: 'messages' }), 2);
      const lagSum = total(samples, 'store_delivery_lag_seconds_sum', { kind: 'webhooks' });
      assert.ok(lagSum >= 0 && lagSum < 60, `webhook lag sum ${lagSum}`);
      assert.equal(total(samples, 'store_delivery_lag_seconds_bucket', { kind: 'messages', le: '+Inf' }), 2);
      // The held-back cancel has waited since it was queued; nothing of the messages waits.
      const oldest = total(samples, 'store_delivery_oldest_undelivered_seconds', { kind: 'webhooks' });
      assert.ok(oldest > 0 && oldest < 60, `oldest undelivered webhook ${oldest}s`);
      assert.equal(total(samples, 'store_delivery_oldest_undelivered_seconds', { kind: 'messages' }), 0);
      // It keeps growing while it waits: read again at the next scrape.
      const later = await eventually(async () => {
        const value = total(await scrape(metricsUrl), 'store_delivery_oldest_undelivered_seconds', { kind: 'webhooks' });
        return value > oldest ? value : undefined;
      }, 50);
      assert.ok(later > oldest);
    });
  });
}
