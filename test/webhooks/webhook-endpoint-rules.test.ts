import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { OPERATOR_CONTEXT } from '../../src/audit/audit-context.js';
import { createTenant } from '../support/quickstart.js';
import { httpBackends, storageBackends } from '../support/storage.js';
import { webhooksHarness, type WebhooksHarness } from './support.js';

const ENV = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8', WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT: '3' };
const json = { 'content-type': 'application/json' };

function create(h: WebhooksHarness, auth: { authorization: string }, payload: Record<string, unknown>) {
  return h.app.inject({ method: 'POST', url: '/v2/webhook-endpoints', headers: { ...auth, ...json }, payload });
}

/** The account's audit trail, oldest first, as [action, actor kind, target id]. */
async function trail(h: WebhooksHarness, accountId: number): Promise<[string, string, string | undefined][]> {
  await new Promise((resolve) => setTimeout(resolve, 20));
  const page = await h.services.audit.list(accountId, { limit: 100 });
  return page.entries.map((entry) => [entry.action, entry.actor.kind, entry.target?.id] as [string, string, string | undefined]).reverse();
}

for (const backend of httpBackends()) {
  describe(`webhook endpoints: scopes, audit trail, limits (${backend.name})`, () => {
    test('when a key holds webhooks:manage but cannot read orders or events, then it can neither create nor redirect nor redeliver to an endpoint (403 insufficient_scope)', async (t) => {
      const h = await webhooksHarness(t, backend, ENV);
      const store = await h.tenant();
      const full = await create(h, store.auth, { url: 'http://127.0.0.1:9/a', eventTypes: ['order.created'] });
      assert.equal(full.statusCode, 201, full.body);
      const endpointId = (full.json() as { id: string }).id;
      const manageOnly = await h.services.apiKeys.createKey({ accountId: store.accountId, scopes: ['webhooks:manage'] });
      const weak = { authorization: `Bearer ${manageOnly.secret}` };
      const refused = await create(h, weak, { url: 'http://127.0.0.1:9/b', eventTypes: ['order.created'] });
      assert.equal(refused.statusCode, 403, refused.body);
      assert.deepEqual(
        { code: refused.json().code, status: refused.json().status },
        { code: 'insufficient_scope', status: 403 },
      );
      assert.match(refused.json().message, /orders:read/);
      const everything = await create(h, weak, { url: 'http://127.0.0.1:9/c' });
      assert.equal(everything.statusCode, 403);
      const moved = await h.app.inject({ method: 'PATCH', url: `/v2/webhook-endpoints/${endpointId}`, headers: { ...weak, ...json }, payload: { url: 'http://127.0.0.1:9/d' } });
      assert.equal(moved.statusCode, 403);
      await h.services.orderOperations.createOrder({ accountId: store.accountId });
      const events = await h.app.inject({ method: 'GET', url: '/v2/events', headers: store.auth });
      const eventId = (events.json() as { data: { id: string }[] }).data[0]?.id;
      assert.ok(eventId);
      const redelivered = await h.app.inject({ method: 'POST', url: `/v2/events/${eventId}/redeliver`, headers: { ...weak, ...json }, payload: { endpointId } });
      assert.equal(redelivered.statusCode, 403);
      // It can still see and describe its endpoints, and turn one off.
      assert.equal((await h.app.inject({ method: 'GET', url: '/v2/webhook-endpoints', headers: weak })).statusCode, 200);
      const described = await h.app.inject({ method: 'PATCH', url: `/v2/webhook-endpoints/${endpointId}`, headers: { ...weak, ...json }, payload: { description: 'fulfilment', status: 'disabled' } });
      assert.equal(described.statusCode, 200, described.body);
      // With the read scopes of what it would receive, it can.
      const reader = await h.services.apiKeys.createKey({ accountId: store.accountId, scopes: ['webhooks:manage', 'events:read', 'orders:read'] });
      assert.equal((await create(h, { authorization: `Bearer ${reader.secret}` }, { url: 'http://127.0.0.1:9/e', eventTypes: ['order.created'] })).statusCode, 201);
    });

    test('when an endpoint is created, changed, disabled, enabled, rotated, redelivered to and deleted, then each is in the audit trail with who did it', async (t) => {
      const h = await webhooksHarness(t, backend, ENV);
      const store = await h.tenant();
      const created = await create(h, store.auth, { url: 'http://127.0.0.1:9/hooks?token=s3cret', eventTypes: ['order.created'] });
      const endpointId = (created.json() as { id: string }).id;
      const patch = (payload: Record<string, unknown>) => h.app.inject({ method: 'PATCH', url: `/v2/webhook-endpoints/${endpointId}`, headers: { ...store.auth, ...json }, payload });
      assert.equal((await patch({ url: 'http://127.0.0.1:9/other' })).statusCode, 200);
      assert.equal((await patch({ status: 'disabled' })).statusCode, 200);
      assert.equal((await patch({ status: 'enabled' })).statusCode, 200);
      assert.equal((await h.app.inject({ method: 'POST', url: `/v2/webhook-endpoints/${endpointId}/rotate-secret`, headers: store.auth })).statusCode, 200);
      await h.services.orderOperations.createOrder({ accountId: store.accountId });
      const eventId = ((await h.app.inject({ method: 'GET', url: '/v2/events', headers: store.auth })).json() as { data: { id: string }[] }).data[0]?.id;
      assert.equal((await h.app.inject({ method: 'POST', url: `/v2/events/${eventId}/redeliver`, headers: { ...store.auth, ...json }, payload: { endpointId } })).statusCode, 202);
      assert.equal((await h.app.inject({ method: 'DELETE', url: `/v2/webhook-endpoints/${endpointId}`, headers: store.auth })).statusCode, 204);
      // The operator at the CLI too.
      const { endpoint } = await h.services.webhooks.createEndpoint(store.accountId, { url: 'http://127.0.0.1:9/cli' }, { context: OPERATOR_CONTEXT });
      const entries = (await trail(h, store.accountId)).filter(([action]) => action.startsWith('webhook_'));
      assert.deepEqual(entries, [
        ['webhook_endpoint_created', 'key', endpointId],
        ['webhook_endpoint_updated', 'key', endpointId],
        ['webhook_endpoint_disabled', 'key', endpointId],
        ['webhook_endpoint_enabled', 'key', endpointId],
        ['webhook_secret_rotated', 'key', endpointId],
        ['webhook_event_redelivered', 'key', endpointId],
        ['webhook_endpoint_deleted', 'key', endpointId],
        ['webhook_endpoint_created', 'operator', endpoint.id],
      ]);
      // The URL's origin only: its path and query may hold a token.
      const details = JSON.stringify((await h.services.audit.list(store.accountId, { limit: 100 })).entries.map((entry) => entry.details));
      assert.ok(!details.includes('s3cret'), details);
      assert.ok(details.includes('"origin":"http://127.0.0.1:9"'), details);
    });

    test('when an account reaches WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT or repeats an endpoint, then 409 says which, and another account is unaffected', async (t) => {
      const h = await webhooksHarness(t, backend, ENV);
      const store = await h.tenant();
      assert.equal((await create(h, store.auth, { url: 'http://127.0.0.1:9/a', eventTypes: ['order.created', 'order.cancelled'] })).statusCode, 201);
      // The same URL and types, in another order: the same endpoint.
      const again = await create(h, store.auth, { url: 'http://127.0.0.1:9/a', eventTypes: ['order.cancelled', 'order.created'] });
      assert.equal(again.statusCode, 409);
      assert.equal(again.json().code, 'webhook_endpoint_exists');
      assert.equal((await create(h, store.auth, { url: 'http://127.0.0.1:9/a', eventTypes: ['order.shipped'] })).statusCode, 201);
      assert.equal((await create(h, store.auth, { url: 'http://127.0.0.1:9/a' })).statusCode, 201);
      const fourth = await create(h, store.auth, { url: 'http://127.0.0.1:9/b' });
      assert.equal(fourth.statusCode, 409);
      assert.deepEqual({ code: fourth.json().code, status: fourth.json().status }, { code: 'webhook_endpoint_limit_reached', status: 409 });
      const other = await createTenant(h.services, 'Other Store');
      assert.equal((await create(h, other.auth, { url: 'http://127.0.0.1:9/a' })).statusCode, 201);
    });
  });
}

for (const backend of httpBackends()) {
  test(`when an endpoints cursor is plain base64 of an id, another account's, or another listing's, then 400 invalid_cursor; a signed one walks the pages (${backend.name})`, async (t) => {
    const h = await webhooksHarness(t, backend, { ...ENV, WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT: '20' });
    const store = await h.tenant();
    const other = await h.tenant();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await create(h, store.auth, { url: `http://127.0.0.1:9/${i}` })).json<{ id: string }>().id);
    ids.sort();
    const list = (auth: { authorization: string }, query: string) => h.app.inject({ method: 'GET', url: `/v2/webhook-endpoints?${query}`, headers: auth });
    const first = (await list(store.auth, 'limit=2')).json<{ data: { id: string }[]; nextCursor: string }>();
    assert.deepEqual(first.data.map((e) => e.id), ids.slice(0, 2));
    const second = (await list(store.auth, `limit=2&cursor=${first.nextCursor}`)).json<{ data: { id: string }[]; nextCursor: string | null }>();
    assert.deepEqual(second.data.map((e) => e.id), ids.slice(2));
    assert.equal(second.nextCursor, null);
    const forged = Buffer.from(ids[0] ?? '', 'utf8').toString('base64url');
    for (const [auth, cursor] of [
      [store.auth, forged],
      [other.auth, first.nextCursor],
    ] as const) {
      const refused = await list(auth, `cursor=${cursor}`);
      assert.equal(refused.statusCode, 400, cursor);
      assert.equal(refused.json<{ code: string }>().code, 'invalid_cursor');
    }
    // A deliveries cursor is not an endpoints cursor.
    await h.services.orderOperations.createOrder({ accountId: store.accountId });
    await h.services.orderOperations.createOrder({ accountId: store.accountId });
    // No engine runs here: make the deliveries as its claim would.
    await h.storage.webhooks.materializeDeliveries();
    const deliveries = await h.app.inject({ method: 'GET', url: `/v2/webhook-endpoints/${ids[0]}/deliveries?limit=1`, headers: store.auth });
    const deliveriesCursor = deliveries.json<{ nextCursor: string | null }>().nextCursor;
    assert.ok(deliveriesCursor !== null, deliveries.body);
    assert.equal((await list(store.auth, `cursor=${deliveriesCursor}`)).statusCode, 400);
  });
}

for (const backend of httpBackends()) {
  test(`when a store recovers failed deliveries, then they are queued again and it is audited; a key that cannot read them, or a bad since, is refused (${backend.name})`, async (t) => {
    const h = await webhooksHarness(t, backend, { ...ENV, WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT: '20' });
    const store = await h.tenant();
    const endpointId = (await create(h, store.auth, { url: 'http://127.0.0.1:9/r', eventTypes: ['order.created'] })).json<{ id: string }>().id;
    await h.services.orderOperations.createOrder({ accountId: store.accountId });
    const [claimed] = await h.storage.webhooks.claimDue({ claimant: 'c', now: new Date(Date.now() + 1000).toISOString(), claimedUntil: new Date(Date.now() + 60_000).toISOString(), limit: 1 });
    assert.ok(claimed);
    await h.storage.webhooks.markAttemptFailed({ id: claimed.id, claimant: 'c', at: new Date().toISOString(), error: 'gone away' });
    const recover = (auth: { authorization: string }, payload: unknown) =>
      h.app.inject({ method: 'POST', url: `/v2/webhook-endpoints/${endpointId}/recover`, headers: { ...auth, ...json }, payload: payload as Record<string, unknown> });
    const manageOnly = await h.services.apiKeys.createKey({ accountId: store.accountId, scopes: ['webhooks:manage'] });
    assert.equal((await recover({ authorization: `Bearer ${manageOnly.secret}` }, { since: '2020-01-01T00:00:00Z' })).statusCode, 403);
    assert.equal((await recover(store.auth, { since: 'yesterday' })).statusCode, 400);
    const done = await recover(store.auth, { since: new Date(Date.now() - 60_000).toISOString() });
    assert.equal(done.statusCode, 202, done.body);
    assert.deepEqual(done.json(), { queued: 1 });
    const statuses = (await h.storage.webhooks.listDeliveries(store.accountId, endpointId, undefined, 10)).map((d) => d.status);
    assert.deepEqual(statuses, ['pending', 'failed']);
    assert.deepEqual((await trail(h, store.accountId)).filter(([action]) => action === 'webhook_deliveries_recovered'), [['webhook_deliveries_recovered', 'key', endpointId]]);
  });
}

for (const backend of storageBackends()) {
  test(`when ten endpoints of one account are created at once, then exactly the limit of them are (${backend.name})`, async (t) => {
    const h = await webhooksHarness(t, backend, ENV);
    const store = await h.tenant();
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        h.storage.webhooks.createEndpoint(
          { id: `we_${String(i).padStart(32, '0')}`, accountId: store.accountId, url: `http://127.0.0.1:9/${i}`, eventTypes: null, description: null, rateLimit: null, sealedSecret: 'v1.aa.bb', createdAt: '2026-11-27T10:00:00.000Z' },
          { maxPerAccount: 3 },
        ),
      ),
    );
    assert.equal(outcomes.filter((outcome) => typeof outcome === 'object').length, 3);
    assert.equal(outcomes.filter((outcome) => outcome === 'limit_reached').length, 7);
    assert.equal((await h.storage.webhooks.listEndpoints(store.accountId, undefined, 100)).length, 3);
  });
}
