import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { storageBackends } from '../support/storage.js';
import { startHookReceiver, webhooksHarness, type WebhooksHarness } from './support.js';

/**
 * An endpoint's own pace: the rate limit a store sets for it, and a pause
 * its receiver asks for with Retry-After. Both hold back that endpoint only.
 * The assertions are lower bounds on waiting (a loaded machine only waits
 * longer) and "another endpoint went on meanwhile".
 */

const ENV = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
  WEBHOOK_RETRY_SCHEDULE: '100ms,100ms,100ms',
  WEBHOOK_POLL_INTERVAL_MS: '20',
};

async function subscribe(h: WebhooksHarness, auth: { authorization: string }, payload: Record<string, unknown>): Promise<string> {
  const response = await h.app.inject({ method: 'POST', url: '/v2/webhook-endpoints', headers: { ...auth, 'content-type': 'application/json' }, payload: { eventTypes: ['order.created'], ...payload } });
  assert.equal(response.statusCode, 201, response.body);
  return response.json<{ id: string }>().id;
}

for (const backend of storageBackends({ postgresDirect: true })) {
  describe(`webhook endpoint pacing: ${backend.name}`, () => {
    test('when an endpoint has a rate limit of 5 a second, then 8 deliveries to it are spread over at least 1.4 s, whatever else is due', async (t) => {
      const h = await webhooksHarness(t, backend, ENV);
      const store = await h.tenant();
      const arrivals: number[] = [];
      const receiver = await startHookReceiver(t, () => {
        arrivals.push(performance.now());
        return 204;
      });
      const id = await subscribe(h, store.auth, { url: receiver.url, rateLimit: 50 });
      const patched = await h.app.inject({ method: 'PATCH', url: `/v2/webhook-endpoints/${id}`, headers: { ...store.auth, 'content-type': 'application/json' }, payload: { rateLimit: 5 } });
      assert.equal(patched.statusCode, 200, patched.body);
      assert.equal(patched.json<{ rateLimit: number }>().rateLimit, 5);
      for (let i = 0; i < 8; i++) await h.services.orderOperations.createOrder({ accountId: store.accountId });
      const started = performance.now();
      h.startEngine();
      await receiver.next(8);
      // Starts 200 ms apart from the engine's first claim: the i-th no earlier than i × 200 ms after the engine started (without
      // the limit all 8 arrive within tens of ms). Measured from the start, not between arrivals: a busy machine may delay an
      // attempt, which only makes it later, whereas a delayed first arrival made the gaps after it look shorter than the pace.
      arrivals.forEach((at, i) => assert.ok(at - started >= i * 200 - 20, `delivery ${i + 1} arrived ${Math.round(at - started)} ms after the engine started`));
      const shown = await h.app.inject({ method: 'GET', url: `/v2/webhook-endpoints/${id}`, headers: store.auth });
      assert.equal(shown.json<{ rateLimit: number }>().rateLimit, 5);
    });

    test("when a receiver answers 429 with Retry-After: 2, then nothing more is sent to that endpoint for 2 s, while another store's endpoint gets its deliveries at once", async (t) => {
      const h = await webhooksHarness(t, backend, ENV);
      const busyStore = await h.tenant('Busy Store');
      const otherStore = await h.tenant('Other Store');
      const calls: number[] = [];
      const busy = await startHookReceiver(t, (_request, index) => {
        calls.push(performance.now());
        return index === 0 ? { status: 429, headers: { 'retry-after': '2' } } : 204;
      });
      const other = await startHookReceiver(t);
      const busyId = await subscribe(h, busyStore.auth, { url: busy.url });
      await subscribe(h, otherStore.auth, { url: other.url });
      await h.services.orderOperations.createOrder({ accountId: busyStore.accountId });
      h.startEngine();
      await busy.next(1);
      // The 429's outcome is recorded with the engine's next step: the endpoint shows its pause once it is.
      const pausedUntil = async () => {
        const response = await h.app.inject({ method: 'GET', url: `/v2/webhook-endpoints/${busyId}`, headers: busyStore.auth });
        assert.equal(response.statusCode, 200, response.body);
        return response.json<{ pausedUntil: string | null }>().pausedUntil;
      };
      let shown = await pausedUntil();
      for (let tries = 0; shown === null && tries < 100; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        shown = await pausedUntil();
      }
      assert.ok(shown !== null && Date.parse(shown) > Date.now(), `pausedUntil ${shown}`);
      // Two more orders for the paused endpoint (other orders: not held back by the first one's order), and one for the other store.
      await h.services.orderOperations.createOrder({ accountId: busyStore.accountId });
      await h.services.orderOperations.createOrder({ accountId: busyStore.accountId });
      await h.services.orderOperations.createOrder({ accountId: otherStore.accountId });
      await other.next(1);
      assert.equal(busy.received.length, 1, 'nothing sent to the paused endpoint while the other store got its delivery');
      await busy.next(4);
      const waited = (calls[1] ?? 0) - (calls[0] ?? 0);
      assert.ok(waited >= 1900, `the endpoint was called again after ${Math.round(waited)} ms`);
      assert.equal(await pausedUntil(), null, 'a pause that has ended is shown as none');
    });
  });
}
