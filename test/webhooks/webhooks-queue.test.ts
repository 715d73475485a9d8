import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openStorage } from '../../src/storage/open-storage.js';
import { testBackends } from '../support/storage.js';
import { startHookReceiver, webhooksHarness } from './support.js';

const FAR = '9999-12-31T00:00:00.000Z';

for (const backend of testBackends()) {
  describe(`webhook deliveries queue (${backend.name})`, () => {
    test('when ten connections claim concurrently, then each of 60 due deliveries is claimed exactly once', async (t) => {
      const h = await webhooksHarness(t, backend);
      const { accountId, auth } = await h.tenant();
      const receiver = await startHookReceiver(t);
      await h.app.inject({ method: 'POST', url: '/v2/webhook-endpoints', headers: { ...auth, 'content-type': 'application/json' }, payload: { url: receiver.url, eventTypes: ['order.created'] } });
      for (let i = 0; i < 60; i++) await h.services.orders.createOrder({ accountId });
      const connections = Array.from({ length: 10 }, () => openStorage(h.database));
      t.after(() => Promise.all(connections.map((c) => c.close())));
      const now = new Date().toISOString();
      const claims = await Promise.all(
        connections.map(async (connection, index) => {
          const mine = [];
          for (;;) {
            const batch = await connection.webhooks.claimDue({ claimant: `c${index}`, now, claimedUntil: FAR, limit: 3 });
            if (batch.length === 0) return mine;
            mine.push(...batch.map((d) => d.id));
          }
        }),
      );
      const all = claims.flat();
      assert.equal(all.length, 60);
      assert.equal(new Set(all).size, 60);
    });

    test('when a claim lapses (its holder died), then another engine takes the delivery and the old holder cannot settle it', async (t) => {
      const h = await webhooksHarness(t, backend);
      const { accountId, auth } = await h.tenant();
      const receiver = await startHookReceiver(t);
      await h.app.inject({ method: 'POST', url: '/v2/webhook-endpoints', headers: { ...auth, 'content-type': 'application/json' }, payload: { url: receiver.url, eventTypes: ['order.created'] } });
      await h.services.orders.createOrder({ accountId });
      const t0 = Date.now() + 1000;
      const at = (ms: number) => new Date(t0 + ms).toISOString();
      const [first] = await h.storage.webhooks.claimDue({ claimant: 'dead', now: at(0), claimedUntil: at(1000), limit: 10 });
      assert.ok(first);
      assert.deepEqual(await h.storage.webhooks.claimDue({ claimant: 'other', now: at(999), claimedUntil: at(2000), limit: 10 }), []);
      const [second] = await h.storage.webhooks.claimDue({ claimant: 'other', now: at(1000), claimedUntil: at(2000), limit: 10 });
      assert.equal(second?.id, first.id);
      assert.equal(second?.attempts, 2);
      assert.equal(await h.storage.webhooks.markSent({ id: first.id, claimant: 'dead', at: at(1500) }), false);
      assert.equal(await h.storage.webhooks.markSent({ id: first.id, claimant: 'other', at: at(1500), statusCode: 200, durationMs: 3 }), true);
      assert.equal(await h.storage.webhooks.markAttemptFailed({ id: first.id, claimant: 'other', at: at(1600), error: 'late' }), false);
    });

    test('when one order has two events, then the later is not claimable until the earlier succeeded or was given up, and other orders flow meanwhile', async (t) => {
      const h = await webhooksHarness(t, backend);
      const { accountId, auth } = await h.tenant();
      const receiver = await startHookReceiver(t);
      await h.app.inject({ method: 'POST', url: '/v2/webhook-endpoints', headers: { ...auth, 'content-type': 'application/json' }, payload: { url: receiver.url } });
      const one = await h.services.orders.createOrder({ accountId });
      await h.services.orders.cancelOrder(accountId, one.id);
      const other = await h.services.orders.createOrder({ accountId });
      const now = () => new Date(Date.now() + 1000).toISOString();
      const claimed = await h.storage.webhooks.claimDue({ claimant: 'a', now: now(), claimedUntil: FAR, limit: 10 });
      // The creation of each order, not the cancellation of the first.
      assert.equal(claimed.length, 2);
      const payloads = claimed.map((d) => JSON.parse(d.payload) as { type: string; data: { order: { id: number } } });
      assert.deepEqual(payloads.map((p) => p.type), ['order.created', 'order.created']);
      assert.deepEqual(new Set(payloads.map((p) => String(p.data.order.id))), new Set([String(one.id), String(other.id)]));
      const [first] = claimed;
      assert.ok(first);
      // A failed attempt with a retry keeps it pending: the cancellation still waits.
      await h.storage.webhooks.markAttemptFailed({ id: first.id, claimant: 'a', at: now(), error: 'HTTP 500', statusCode: 500, retryAt: FAR });
      assert.deepEqual(await h.storage.webhooks.claimDue({ claimant: 'b', now: now(), claimedUntil: FAR, limit: 10 }), []);
      // Given up: the next one goes.
      const [again] = await h.storage.webhooks.claimDue({ claimant: 'b', now: FAR, claimedUntil: FAR, limit: 10 });
      assert.equal(again?.id, first.id);
      await h.storage.webhooks.markAttemptFailed({ id: first.id, claimant: 'b', at: now(), error: 'HTTP 500' });
      const [next] = await h.storage.webhooks.claimDue({ claimant: 'c', now: now(), claimedUntil: FAR, limit: 10 });
      assert.equal((JSON.parse(next?.payload ?? '{}') as { type?: string }).type, 'order.cancelled');
    });
  });
}
