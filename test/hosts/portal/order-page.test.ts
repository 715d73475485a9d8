/**
 * The order page (/orders/<id>) over real requests: an order placed from the
 * portal, then touched through the API, shows those requests, its events and
 * their webhook deliveries side by side, linked both ways with the Logs page;
 * the placing is in the audit trail with who did it; another account's order
 * is the 404 page in words. On SQLite: the reads are the storage contract's
 * on every backend (test/contract/storage/order-history-contract.test.ts).
 */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import { buildTestStoreApp } from '../../support/app.js';
import { capturingLogger } from '../../support/logs.js';
import { accountOf, createTestPortal, orderIds, pageText, signUp, type TestPortal } from '../../support/portal.js';
import { storageBackends } from '../../support/storage.js';

const [sqlite] = storageBackends();
if (sqlite === undefined) throw new Error('no SQLite backend');

/** The store host over the portal's services and database, and a key of the account. */
async function storeFor(t: TestContext, portal: TestPortal, accountId: number) {
  const store = await buildTestStoreApp({ logger: capturingLogger().logger, services: portal.services, storage: portal.storage });
  t.after(() => store.close());
  const { secret } = await portal.services.apiKeys.createKey({ accountId, name: 'checkout' });
  const call = async (method: 'GET' | 'DELETE', url: string) => (await store.inject({ method, url, headers: { authorization: `Bearer ${secret}`, 'user-agent': 'checkout/2.0' } })).statusCode;
  return { call, secret };
}

/** An endpoint of the account receiving every event type, written as the webhooks service stores one. */
async function endpointOf(portal: TestPortal, accountId: number) {
  const endpoint = await portal.storage.webhooks.createEndpoint(
    { id: `we_${'a'.repeat(32)}`, accountId, url: 'https://hooks.example.com/orders', eventTypes: null, description: null, rateLimit: null, sealedSecret: 'sealed', createdAt: new Date().toISOString() },
    { maxPerAccount: 10 },
  );
  assert.ok(typeof endpoint === 'object');
  return endpoint;
}

describe('portal /orders/<id>: sqlite', () => {
  test('when an order was placed on the portal and touched through the API, then its page shows the order, those requests, its events and each delivery, linked to the Logs and Webhooks pages', async (t) => {
    const portal = await createTestPortal(t, sqlite);
    const { client, email } = await signUp(portal);
    const accountId = await accountOf(portal, email);
    const endpoint = await endpointOf(portal, accountId);
    const { call, secret } = await storeFor(t, portal, accountId);

    const placed = await client.post('/orders', { petId: '9223372036854775807', quantity: '3', shipDate: '2026-12-01' }, {}, '/orders');
    assert.equal(placed.statusCode, 303);
    const id = /placed=(\d+)$/.exec(String(placed.headers.location))?.[1] ?? '';
    assert.deepEqual(orderIds((await client.get('/orders')).body), [id], 'each row links to the order page');

    assert.equal(await call('GET', `/v2/store/orders/${id}`), 200);
    portal.clock.advance(1000);
    assert.equal(await call('DELETE', `/v1/store/orders/${id}`), 204);
    portal.clock.advance(1000);
    assert.equal(await call('DELETE', `/v2/store/orders/${id}`), 409);
    // Neither names this order: another id that starts with it, and the listing.
    assert.equal(await call('GET', `/v2/store/orders/${id}0`), 404);
    assert.equal(await call('GET', '/v1/store/orders'), 200);
    await portal.services.requestLogRecorder.flush();

    // The engine's first attempt of the order.created delivery got a 503 and is to be retried.
    const [claimed] = await portal.storage.webhooks.claimDue({ claimant: 'engine', now: new Date(Date.now() + 60_000).toISOString(), claimedUntil: new Date(Date.now() + 120_000).toISOString(), limit: 1 });
    assert.ok(claimed !== undefined);
    await portal.storage.webhooks.markAttemptFailed({ id: claimed.id, claimant: 'engine', at: new Date().toISOString(), attempt: 1, statusCode: 503, durationMs: 40, error: 'The endpoint answered HTTP 503.', retryAt: new Date(Date.now() + 600_000).toISOString() });

    const page = await client.get(`/orders/${id}`);
    assert.equal(page.statusCode, 200);
    const text = pageText(page.body);
    assert.match(text, new RegExp(`Order ${id} Status cancelled Pet ID 9223372036854775807 Quantity 3 Ship date 2026-12-01`));
    const requests = [...page.body.matchAll(/<a href="\/logs\/(\d+)"><code>([A-Z]+ [^<]+)<\/code><\/a>/g)].map((match) => match[2]);
    assert.deepEqual(requests, [`DELETE /v2/store/orders/${id}`, `DELETE /v1/store/orders/${id}`, `GET /v2/store/orders/${id}`], 'newest first, only the requests naming this order');
    assert.match(text, /409 order_already_cancelled/);
    assert.ok(!page.body.includes(secret) && !page.body.includes(secret.slice(8)), 'the key is never shown');

    const events = [...page.body.matchAll(/<h3 id="(evt_[0-9a-f]{32})"><code>([a-z.]+)<\/code>/g)].map((match) => match[2]);
    assert.deepEqual(events, ['order.created', 'order.cancelled']);
    assert.ok(page.body.includes(`<a href="/webhooks/${endpoint.id}/deliveries/${claimed.id}"><code class="wrap">https://hooks.example.com/orders</code></a>`), 'the delivery opens its page');
    assert.match(text, /pending 1 attempt HTTP 503: The endpoint answered HTTP 503\. \(next try/);
    assert.match(text, /pending 0 attempts not sent yet/, "the cancel's delivery waits behind the created one");

    // The request's own page links back to the order page; one naming no order, or an order the account does not have, does not.
    const cancelLog = /<a href="(\/logs\/\d+)"><code>DELETE \/v1\/store\/orders\//.exec(page.body)?.[1] ?? '';
    const log = await client.get(cancelLog);
    assert.ok(log.body.includes(`<a href="/orders/${id}">Order ${id}: its requests, events and webhook deliveries</a>`));
    const listing = await portal.services.requestLogs.list(accountId, {}, { limit: 10 });
    const listingLog = listing.entries.find((entry) => entry.path === '/v1/store/orders');
    assert.ok(listingLog !== undefined);
    assert.doesNotMatch((await client.get(`/logs/${listingLog.id}`)).body, /its requests, events and webhook deliveries/);
    const missingLog = listing.entries.find((entry) => entry.path === `/v2/store/orders/${id}0`);
    assert.ok(missingLog !== undefined);
    const missing = await client.get(`/logs/${missingLog.id}`);
    assert.equal(missing.statusCode, 200);
    assert.doesNotMatch(missing.body, /its requests, events and webhook deliveries/);
  });

  test('when a user places a test order, then the audit trail says who placed which order, from where', async (t) => {
    const portal = await createTestPortal(t, sqlite);
    const { client, email } = await signUp(portal);
    const accountId = await accountOf(portal, email);
    const user = await portal.storage.users.findByEmail(email);
    assert.ok(user !== undefined);
    const placed = await client.post('/orders', { petId: '7', quantity: '1' }, {}, '/orders');
    const id = /placed=(\d+)$/.exec(String(placed.headers.location))?.[1] ?? '';
    const entries = (await portal.storage.audit.listPage({ accountId, limit: 10 })).filter((entry) => entry.action === 'order_created');
    assert.deepEqual(
      entries.map(({ actor, action, target, address }) => ({ actor, action, target, address })),
      [{ actor: { kind: 'user', id: user.id }, action: 'order_created', target: { kind: 'order', id }, address: '127.0.0.1' }],
    );
    assert.match(pageText((await client.get('/audit')).body), /Order placed/);
    // A refused form places nothing and records nothing.
    assert.equal((await client.post('/orders', { petId: '7', quantity: '0' })).statusCode, 400);
    assert.equal((await portal.storage.audit.listPage({ accountId, limit: 10 })).filter((entry) => entry.action === 'order_created').length, 1);
  });

  test("when another account's order, a missing one or an id past int64 is asked for, then the 404 page says so in words and shows nothing of it", async (t) => {
    const portal = await createTestPortal(t, sqlite);
    const { email } = await signUp(portal);
    const owner = await accountOf(portal, email);
    const theirs = await portal.services.orderOperations.createOrder({ accountId: owner, petId: 424242n, quantity: 77 });
    const { client: other } = await signUp(portal);
    for (const url of [`/orders/${theirs.id}`, '/orders/999999', '/orders/9223372036854775808', '/orders/9999999999999999999']) {
      const page = await other.get(url);
      assert.equal(page.statusCode, 404, url);
      assert.match(String(page.headers['content-type']), /^text\/html/, url);
      const text = pageText(page.body);
      assert.match(text, /Page not found/, url);
      assert.match(text, /There is nothing at this address/, url);
      assert.doesNotMatch(text, /424242|pending|Quantity/, url);
    }
    for (const url of ['/orders/abc', '/orders/0', '/orders/-1']) assert.notEqual((await other.get(url)).statusCode, 200, url);
  });
});
