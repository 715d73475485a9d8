import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { openStorage } from '../../src/storage/open-storage.js';
import { eventually, manualClock } from '../support/quickstart.js';
import { storageBackends } from '../support/storage.js';
import { startHookReceiver, webhooksHarness, type Delivered, type WebhooksHarness } from './support.js';

async function createEndpoint(h: WebhooksHarness, auth: { authorization: string }, body: Record<string, unknown>) {
  const response = await h.app.inject({ method: 'POST', url: '/v2/webhook-endpoints', headers: { ...auth, 'content-type': 'application/json' }, payload: body });
  assert.equal(response.statusCode, 201, response.body);
  return response.json<{ id: string; secret: string; status: string }>();
}

function verify(secret: string, delivered: Delivered): { id: string; type: string; data: { order: { id: number; status: string } } } {
  return new Webhook(secret).verify(delivered.body, delivered.headers as Record<string, string>) as { id: string; type: string; data: { order: { id: number; status: string } } };
}

async function cancel(h: WebhooksHarness, auth: { authorization: string }, orderId: bigint) {
  const response = await h.app.inject({ method: 'DELETE', url: `/v2/store/orders/${orderId}`, headers: auth });
  assert.equal(response.statusCode, 204, response.body);
}

for (const backend of storageBackends()) {
  describe(`webhook delivery (${backend.name})`, () => {
    test('when an order is cancelled, then the subscribed endpoint receives the event signed by Standard Webhooks, and tampering fails verification', async (t) => {
      const h = await webhooksHarness(t, backend);
      const { accountId, auth } = await h.tenant();
      const receiver = await startHookReceiver(t);
      const endpoint = await createEndpoint(h, auth, { url: receiver.url, eventTypes: ['order.cancelled'] });
      assert.match(endpoint.secret, /^whsec_/);
      const order = await h.services.orderOperations.createOrder({ accountId, petId: 7n, quantity: 1 });
      await cancel(h, auth, order.id);
      h.startEngine();
      const [delivered] = await receiver.next(1);
      assert.ok(delivered);
      const event = verify(endpoint.secret, delivered);
      assert.equal(event.type, 'order.cancelled');
      assert.equal(event.data.order.status, 'cancelled');
      assert.equal(String(event.data.order.id), String(order.id));
      assert.equal(delivered.headers['webhook-id'], event.id);
      assert.equal(delivered.headers['content-type'], 'application/json');
      assert.match(String(delivered.headers['user-agent']), /store-orders/);
      assert.match(String(delivered.headers['webhook-signature']), /^v1,[A-Za-z0-9+/=]+$/);
      // Only the subscribed type: order.created was not sent.
      assert.equal(receiver.received.length, 1);
      assert.throws(() => verify(`whsec_${Buffer.alloc(24, 1).toString('base64')}`, delivered));
      assert.throws(() => verify(endpoint.secret, { ...delivered, body: delivered.body.replace('cancelled', 'shipped') }));
      const stale = { ...delivered, headers: { ...delivered.headers, 'webhook-timestamp': String(Math.floor(Date.now() / 1000) - 3600) } };
      assert.throws(() => verify(endpoint.secret, stale));
      // The log shows the delivery as succeeded.
      await eventually(async () => {
        const page = await h.app.inject({ method: 'GET', url: `/v2/webhook-endpoints/${endpoint.id}/deliveries`, headers: auth });
        const [first] = page.statusCode === 200 ? page.json<{ data: { status: string; statusCode: number; eventId: string; nextAttemptAt: null }[] }>().data : [];
        return first?.status === 'succeeded' ? first : undefined;
      });
    });

    test('when the receiver fails the first attempt of each event, then the events of one order still arrive in order', async (t) => {
      const h = await webhooksHarness(t, backend);
      const { accountId, auth } = await h.tenant();
      const seen = new Set<string>();
      const receiver = await startHookReceiver(t, (request) => {
        const id = String(request.headers['webhook-id']);
        if (seen.has(id)) return 200;
        seen.add(id);
        return 500;
      });
      const endpoint = await createEndpoint(h, auth, { url: receiver.url });
      const orders = [];
      for (let i = 0; i < 3; i++) orders.push(await h.services.orderOperations.createOrder({ accountId, quantity: 1 }));
      for (const order of orders) await cancel(h, auth, order.id);
      h.startEngine();
      // 6 events (created, cancelled per order), each failing once: 12 requests.
      const requests = await receiver.next(12);
      const succeeded = new Map<string, string[]>();
      const firstSeen = new Set<string>();
      for (const request of requests) {
        const event = verify(endpoint.secret, request);
        const id = String(request.headers['webhook-id']);
        if (!firstSeen.has(id)) {
          firstSeen.add(id);
          continue;
        }
        const order = String(event.data.order.id);
        succeeded.set(order, [...(succeeded.get(order) ?? []), event.type]);
        // The cancellation was never attempted before the creation succeeded.
      }
      for (const order of orders) assert.deepEqual(succeeded.get(String(order.id)), ['order.created', 'order.cancelled']);
      for (const order of orders) {
        const attempts = requests.filter((r) => verify(endpoint.secret, r).data.order.id.toString() === String(order.id)).map((r) => verify(endpoint.secret, r).type);
        assert.deepEqual(attempts, ['order.created', 'order.created', 'order.cancelled', 'order.cancelled']);
      }
    });

    test('when the receiver answers 429 with Retry-After, then the retry waits at least that long', async (t) => {
      const h = await webhooksHarness(t, backend);
      const { accountId, auth } = await h.tenant();
      const times: number[] = [];
      const receiver = await startHookReceiver(t, (_request, index) => {
        times.push(Date.now());
        return index === 0 ? { status: 429, headers: { 'retry-after': '1' } } : 200;
      });
      await createEndpoint(h, auth, { url: receiver.url, eventTypes: ['order.created'] });
      await h.services.orderOperations.createOrder({ accountId });
      h.startEngine();
      await receiver.next(2);
      const [first = 0, second = 0] = times;
      // The schedule says 100 ms (±20 %); Retry-After says 1 s.
      assert.ok(second - first >= 950, `retried after ${second - first} ms`);
    });

    test('when the receiver answers 410, then the endpoint is disabled at once, the audit trail says so (actor system), and nothing more is sent', async (t) => {
      const h = await webhooksHarness(t, backend);
      const { accountId, auth } = await h.tenant();
      const receiver = await startHookReceiver(t, () => 410);
      const endpoint = await createEndpoint(h, auth, { url: receiver.url });
      await h.services.orderOperations.createOrder({ accountId });
      h.startEngine();
      await receiver.next(1);
      const got = await eventually(async () => {
        const response = await h.app.inject({ method: 'GET', url: `/v2/webhook-endpoints/${endpoint.id}`, headers: auth });
        const body = response.json<{ status: string; disabledReason: string | null }>();
        return response.statusCode === 200 && body.status === 'disabled' ? body : undefined;
      });
      assert.match(String(got.disabledReason), /410/);
      const audit = await h.app.inject({ method: 'GET', url: '/v2/audit-events', headers: auth });
      const disabling = audit.json<{ data: { action: string; actor: unknown; target?: unknown; details: unknown }[] }>().data.filter((e) => e.action === 'webhook_endpoint_disabled');
      assert.deepEqual(
        disabling.map(({ actor, target, details }) => ({ actor, target, details })),
        [{ actor: { kind: 'system' }, target: { kind: 'webhook_endpoint', id: endpoint.id }, details: { reason: 'The endpoint answered HTTP 410 Gone.' } }],
      );
      await h.services.orderOperations.createOrder({ accountId });
      await new Promise((resolve) => setTimeout(resolve, 400));
      assert.equal(receiver.received.length, 1);
    });

    test('when a delivery keeps failing, then it is given up, stays listed, and a redelivery sends it again with the same webhook-id', async (t) => {
      const h = await webhooksHarness(t, backend);
      const { accountId, auth } = await h.tenant();
      let healthy = false;
      const receiver = await startHookReceiver(t, () => (healthy ? 200 : 500));
      const endpoint = await createEndpoint(h, auth, { url: receiver.url, eventTypes: ['order.created'] });
      await h.services.orderOperations.createOrder({ accountId });
      h.startEngine();
      // 1 attempt + 3 retries.
      await receiver.next(4);
      type Page = { data: { status: string; eventId: string; attempts: number; statusCode: number; error: string; nextAttemptAt: string | null; durationMs: number }[] };
      const failed = await eventually(async () => {
        const page = await h.app.inject({ method: 'GET', url: `/v2/webhook-endpoints/${endpoint.id}/deliveries`, headers: auth });
        const [first] = page.statusCode === 200 ? page.json<Page>().data : [];
        return first?.status === 'failed' ? first : undefined;
      });
      assert.equal(failed.attempts, 4);
      assert.equal(failed.statusCode, 500);
      assert.equal(failed.nextAttemptAt, null);
      assert.ok(failed.durationMs >= 0);
      healthy = true;
      const redo = await h.app.inject({ method: 'POST', url: `/v2/events/${failed.eventId}/redeliver`, headers: { ...auth, 'content-type': 'application/json' }, payload: { endpointId: endpoint.id } });
      assert.equal(redo.statusCode, 202, redo.body);
      assert.deepEqual(redo.json(), { queued: 1 });
      const all = await receiver.next(5);
      assert.deepEqual(new Set(all.map((r) => r.headers['webhook-id'])), new Set([failed.eventId]));
      const missing = await h.app.inject({ method: 'POST', url: '/v2/events/evt_nope/redeliver', headers: auth });
      assert.equal(missing.statusCode, 404);
      assert.equal(missing.json<{ code: string }>().code, 'event_not_found');
    });

    test('when the secret is rotated, then deliveries carry signatures by the new and the previous secret', async (t) => {
      const h = await webhooksHarness(t, backend);
      const { accountId, auth } = await h.tenant();
      const receiver = await startHookReceiver(t);
      const endpoint = await createEndpoint(h, auth, { url: receiver.url, eventTypes: ['order.created'] });
      const rotated = await h.app.inject({ method: 'POST', url: `/v2/webhook-endpoints/${endpoint.id}/rotate-secret`, headers: auth });
      assert.equal(rotated.statusCode, 200, rotated.body);
      const { secret } = rotated.json<{ secret: string }>();
      assert.notEqual(secret, endpoint.secret);
      await h.services.orderOperations.createOrder({ accountId });
      h.startEngine();
      const [delivered] = await receiver.next(1);
      assert.ok(delivered);
      assert.equal(String(delivered.headers['webhook-signature']).split(' ').length, 2);
      verify(secret, delivered);
      verify(endpoint.secret, delivered);
    });

    test('when two engines share one database, then no attempt is delivered twice and every event arrives', async (t) => {
      const h = await webhooksHarness(t, backend);
      const { accountId, auth } = await h.tenant();
      const receiver = await startHookReceiver(t);
      const endpoint = await createEndpoint(h, auth, { url: receiver.url, eventTypes: ['order.created'] });
      for (let i = 0; i < 40; i++) await h.services.orderOperations.createOrder({ accountId });
      const second = openStorage(h.database);
      h.startEngine();
      h.startEngine({ storage: second });
      // After the engine's own stop (node:test runs after-hooks in the order they were added):
      // a pool ended under a running engine made this test wait about 12 s on PostgreSQL.
      t.after(() => second.close());
      const requests = await receiver.next(40);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(receiver.received.length, 40);
      assert.equal(new Set(requests.map((r) => r.headers['webhook-id'])).size, 40);
      for (const request of requests) verify(endpoint.secret, request);
    });

    test('when an attempt is in flight, then its claim holds for WEBHOOK_TIMEOUT_MS plus WEBHOOK_CLAIM_MARGIN_MS, when another process may retry it', async (t) => {
      const clock = manualClock();
      const env = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8', WEBHOOK_TIMEOUT_MS: '5000', WEBHOOK_CLAIM_MARGIN_MS: '7000' };
      const h = await webhooksHarness(t, backend, env, clock);
      const { accountId, auth } = await h.tenant();
      const receiver = await startHookReceiver(t, () => 'hang');
      const endpoint = await createEndpoint(h, auth, { url: receiver.url, eventTypes: ['order.created'] });
      await h.services.orderOperations.createOrder({ accountId });
      h.startEngine({ clock });
      await receiver.next(1);
      const [delivery] = await h.storage.webhooks.listDeliveries(accountId, endpoint.id, undefined, 1);
      assert.equal(delivery?.nextAttemptAt, new Date(clock.now().getTime() + 5000 + 7000).toISOString());
    });
  });
}
