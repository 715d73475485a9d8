import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createTenant, eventually } from '../support/quickstart.js';
import { startServer } from '../support/process.js';
import { httpBackends } from '../support/storage.js';
import { testConfig, testServices } from '../support/container.js';
import { startHookReceiver } from '../webhooks/support.js';
import { databaseUrlOf, scrape, total, type Sample } from './scrape.js';

const WEBHOOKS_ENV = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
  WEBHOOK_POLL_INTERVAL_MS: '20',
  WEBHOOK_RETRY_SCHEDULE: '100ms',
  // Long enough for the test to watch a delivery wait behind the hanging attempt.
  WEBHOOK_TIMEOUT_MS: '4000',
  // One attempt at a time per endpoint: the stalling endpoint's next delivery waits for its one slot.
  WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: '1',
};

for (const backend of httpBackends()) {
  describe(`delivery metrics (${backend.name})`, () => {
    test('when webhooks and messages are delivered to loopback receivers that accept, refuse and fail, then the scrape counts each outcome by kind, observes the lag of each attempt and shows how long a delivery has waited for a busy engine', async (t) => {
      const { config, storage } = await backend.freshDatabase(t);
      const services = testServices(storage, { config: testConfig(WEBHOOKS_ENV) });
      const { account, auth } = await createTenant(services, 'Delivered');
      const accepting = await startHookReceiver(t, () => 204);
      // 410: "never again": given up at once, no retry.
      const gone = await startHookReceiver(t, () => 410);
      // Hangs the first request until the attempt times out: that endpoint's one slot is held, and its next delivery waits for it.
      const stalling = await startHookReceiver(t, (_request, index) => (index === 0 ? 'hang' : 204));
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
      const oldest = async (kind: string) => total(await scrape(metricsUrl), 'store_delivery_oldest_undelivered_seconds', { kind });

      const before = await scrape(metricsUrl);
      for (const kind of ['messages', 'webhooks']) {
        for (const outcome of ['sent', 'failed', 'given_up']) assert.equal(total(before, 'store_deliveries_total', { kind, outcome }), 0, `${kind} ${outcome} starts at 0`);
        assert.equal(total(before, 'store_delivery_lag_seconds_count', { kind }), 0);
        assert.equal(total(before, 'store_delivery_oldest_undelivered_seconds', { kind }), 0, `no ${kind} waiting yet`);
      }

      for (const receiver of [accepting, gone, stalling]) {
        // Through the services, not the store host: a request there would make the engine yield for a while after each batch.
        await services.webhooks.createEndpoint(account.id, { url: receiver.url, eventTypes: ['order.created'] });
      }
      await services.orderOperations.createOrder({ accountId: account.id, petId: 1n, quantity: 1 });
      // The stalling endpoint's slot is held while its receiver hangs: its delivery of a second order falls due and waits.
      await stalling.next(1);
      await services.orderOperations.createOrder({ accountId: account.id, petId: 2n, quantity: 1 });
      const waited = await eventually(async () => {
        const value = await oldest('webhooks');
        return value > 0 ? value : undefined;
      }, 50);
      const longer = await eventually(async () => {
        const value = await oldest('webhooks');
        return value > waited ? value : undefined;
      }, 50);
      assert.ok(longer < 60, `oldest undelivered webhook ${longer}s`);

      const posted = await fetch(`${server.quickstartUrl}/messages`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'never arrives' }),
      });
      assert.equal(posted.status, 202);

      const settled = (samples: readonly Sample[], kind: string) =>
        ['sent', 'failed', 'given_up'].map((outcome) => total(samples, 'store_deliveries_total', { kind, outcome })).join();
      const samples = await eventually(async () => {
        const scraped = await scrape(metricsUrl);
        return settled(scraped, 'webhooks') === '4,1,1' && settled(scraped, 'messages') === '0,1,1' ? scraped : undefined;
      }, 50);
      // Webhooks: both orders to the accepting endpoint; the gone one given up (its endpoint then disabled, the second order's
      // delivery kept for when it is enabled again); the stalling one timed out once, then both orders arrived.
      assert.equal(accepting.received.length, 2);
      assert.equal(gone.received.length, 1);
      assert.equal(stalling.received.length, 3);
      // Messages: two attempts, the first retried, the second given up.
      assert.equal(failingMessages.received.length, 2);
      assert.equal(total(samples, 'store_message_delivery_attempts_total', { outcome: 'failed' }), 2);
      // One lag observation per claimed attempt; the second order's stalling delivery waited out the hanging attempt.
      assert.equal(total(samples, 'store_delivery_lag_seconds_count', { kind: 'webhooks' }), 6);
      assert.equal(total(samples, 'store_delivery_lag_seconds_count', { kind: 'messages' }), 2);
      const lagSum = total(samples, 'store_delivery_lag_seconds_sum', { kind: 'webhooks' });
      assert.ok(lagSum >= longer && lagSum < 120, `webhook lag sum ${lagSum}s, at least the ${longer}s seen waiting`);
      assert.ok(total(samples, 'store_delivery_lag_seconds_bucket', { kind: 'webhooks', le: '0.5' }) < 6, 'not every attempt was claimed at once');
      // Nothing waits any more: the gauge is back to 0 (the gone endpoint's delivery waits for the endpoint, not the engine).
      assert.equal(await oldest('webhooks'), 0);
      assert.equal(await oldest('messages'), 0);
    });
  });
}
