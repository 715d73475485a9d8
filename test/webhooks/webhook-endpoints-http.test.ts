import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Database } from '../../src/storage/sqlite/sqlite-driver.js';
import { httpBackends, sqliteBackend } from '../support/storage.js';
import { startHookReceiver, webhooksHarness, type WebhooksHarness } from './support.js';

const JSON_HEADERS = { 'content-type': 'application/json' };

async function post(h: WebhooksHarness, auth: { authorization: string }, payload: Record<string, unknown>) {
  return h.app.inject({ method: 'POST', url: '/v2/webhook-endpoints', headers: { ...auth, ...JSON_HEADERS }, payload });
}

for (const backend of httpBackends()) {
  describe(`webhook endpoints over HTTP (${backend.name})`, () => {
    test('when endpoints are created, listed, read, updated and deleted, then each answer has the documented shape and the secret is shown only at creation', async (t) => {
      const h = await webhooksHarness(t, backend);
      const { auth } = await h.tenant();
      const receiver = await startHookReceiver(t);
      const created = await post(h, auth, { url: receiver.url, description: 'first' });
      assert.equal(created.statusCode, 201, created.body);
      const endpoint = created.json<{ id: string; secret: string; eventTypes: null; status: string; description: string }>();
      assert.match(endpoint.id, /^we_[0-9a-f]{32}$/);
      assert.equal(endpoint.eventTypes, null);
      assert.equal(endpoint.status, 'enabled');
      for (let i = 0; i < 2; i++) assert.equal((await post(h, auth, { url: `${receiver.url}?copy=${i}`, eventTypes: ['order.shipped'] })).statusCode, 201);

      const first = await h.app.inject({ method: 'GET', url: '/v2/webhook-endpoints?limit=2', headers: auth });
      assert.equal(first.statusCode, 200);
      const page1 = first.json<{ data: Record<string, unknown>[]; nextCursor: string | null }>();
      assert.equal(page1.data.length, 2);
      assert.ok(page1.nextCursor);
      for (const item of page1.data) assert.equal('secret' in item, false);
      const second = await h.app.inject({ method: 'GET', url: `/v2/webhook-endpoints?limit=2&cursor=${page1.nextCursor}`, headers: auth });
      const page2 = second.json<{ data: { id: string }[]; nextCursor: string | null }>();
      assert.equal(page2.data.length, 1);
      assert.equal(page2.nextCursor, null);
      const bad = await h.app.inject({ method: 'GET', url: '/v2/webhook-endpoints?cursor=xyz', headers: auth });
      assert.equal(bad.statusCode, 400);
      assert.equal(bad.json<{ code: string }>().code, 'invalid_cursor');

      const got = await h.app.inject({ method: 'GET', url: `/v2/webhook-endpoints/${endpoint.id}`, headers: auth });
      assert.equal(got.statusCode, 200);
      assert.equal('secret' in got.json<Record<string, unknown>>(), false);

      const patched = await h.app.inject({
        method: 'PATCH',
        url: `/v2/webhook-endpoints/${endpoint.id}`,
        headers: { ...auth, ...JSON_HEADERS },
        payload: { status: 'disabled', eventTypes: ['order.cancelled'], description: null, rateLimit: 50 },
      });
      assert.equal(patched.statusCode, 200, patched.body);
      assert.deepEqual(
        { ...patched.json<Record<string, unknown>>(), createdAt: undefined },
        { id: endpoint.id, url: receiver.url, eventTypes: ['order.cancelled'], description: null, status: 'disabled', disabledReason: null, rateLimit: 50, pausedUntil: null, createdAt: undefined },
      );
      for (const rateLimit of [0, 10_001, 1.5, 'fast', false]) {
        const refused = await h.app.inject({ method: 'PATCH', url: `/v2/webhook-endpoints/${endpoint.id}`, headers: { ...auth, ...JSON_HEADERS }, payload: { rateLimit } });
        assert.equal(refused.statusCode, 400, `rateLimit ${rateLimit}`);
        assert.equal(refused.json<{ code: string; status: number }>().status, 400);
      }
      const unlimited = await h.app.inject({ method: 'PATCH', url: `/v2/webhook-endpoints/${endpoint.id}`, headers: { ...auth, ...JSON_HEADERS }, payload: { rateLimit: null } });
      assert.equal(unlimited.json<{ rateLimit: number | null }>().rateLimit, null);
      const deleted = await h.app.inject({ method: 'DELETE', url: `/v2/webhook-endpoints/${endpoint.id}`, headers: auth });
      assert.equal(deleted.statusCode, 204);
      const gone = await h.app.inject({ method: 'GET', url: `/v2/webhook-endpoints/${endpoint.id}`, headers: auth });
      assert.equal(gone.statusCode, 404);
      assert.equal(gone.json<{ code: string; status: number }>().code, 'webhook_endpoint_not_found');
    });

    test("when another account asks for an endpoint, then it answers 404 exactly like a missing one", async (t) => {
      const h = await webhooksHarness(t, backend);
      const owner = await h.tenant();
      const other = await h.tenant();
      const receiver = await startHookReceiver(t);
      const { id } = (await post(h, owner.auth, { url: receiver.url })).json<{ id: string }>();
      const missing = await h.app.inject({ method: 'GET', url: '/v2/webhook-endpoints/we_00000000000000000000000000000000', headers: other.auth });
      for (const [method, url] of [
        ['GET', `/v2/webhook-endpoints/${id}`],
        ['DELETE', `/v2/webhook-endpoints/${id}`],
        ['POST', `/v2/webhook-endpoints/${id}/rotate-secret`],
        ['GET', `/v2/webhook-endpoints/${id}/deliveries`],
      ] as const) {
        const response = await h.app.inject({ method, url, headers: other.auth });
        assert.equal(response.statusCode, 404, `${method} ${url}`);
        assert.equal(response.body, missing.body);
      }
      const list = await h.app.inject({ method: 'GET', url: '/v2/webhook-endpoints', headers: other.auth });
      assert.deepEqual(list.json(), { data: [], nextCursor: null });
    });

    test('when a key lacks webhooks:manage, then 403; a key created without scopes holds it', async (t) => {
      const h = await webhooksHarness(t, backend);
      const { accountId, auth } = await h.tenant();
      const { secret } = await h.services.apiKeys.createKey({ accountId, scopes: ['orders:read'] });
      const refused = await h.app.inject({ method: 'GET', url: '/v2/webhook-endpoints', headers: { authorization: `Bearer ${secret}` } });
      assert.equal(refused.statusCode, 403);
      assert.equal((await h.app.inject({ method: 'GET', url: '/v2/webhook-endpoints', headers: auth })).statusCode, 200);
    });

    test('when the URL is refused by the SSRF rules, then create and update answer 400 naming why', async (t) => {
      const h = await webhooksHarness(t, backend, { WEBHOOK_ALLOW_HTTP: 'false' });
      const { auth } = await h.tenant();
      const cases: [string, RegExp][] = [
        ['http://hooks.example.com/x', /^url is refused: The URL must use https\.$/],
        ['https://127.0.0.1/x', /loopback range, which webhooks may not reach\. To receive events on your own machine, run `store-orders listen .*WEBHOOK_ALLOWED_NETWORKS/],
        ['https://localhost/x', /loopback/],
        ['https://169.254.169.254/latest/meta-data', /link-local \(cloud metadata\)/],
        ['https://[fd00:ec2::254]/', /private/],
        ['https://10.1.2.3/x', /private/],
        ['https://[::ffff:192.168.0.1]/x', /private/],
        ['https://0.0.0.0/x', /unspecified/],
        ['https://224.0.0.1/x', /multicast/],
        ['https://user:pw@hooks.example.com/x', /credentials/],
        ['not a url', /not an absolute URL/],
      ];
      for (const [url, why] of cases) {
        const response = await post(h, auth, { url });
        assert.equal(response.statusCode, 400, url);
        const body = response.json<{ code: string; message: string; status: number }>();
        assert.equal(body.code, 'validation_failed');
        assert.equal(body.status, 400);
        assert.match(body.message, why, url);
      }
      const receiverless = await webhooksHarness(t, backend);
      const tenant = await receiverless.tenant();
      const { id } = (await post(receiverless, tenant.auth, { url: 'http://127.0.0.1:9/x' })).json<{ id: string }>();
      const strict = await h.app.inject({ method: 'PATCH', url: `/v2/webhook-endpoints/${id}`, headers: { ...auth, ...JSON_HEADERS }, payload: { url: 'https://127.0.0.1/x' } });
      // Another account's endpoint: refused before it is looked up, as any 400.
      assert.equal(strict.statusCode, 400);
    });
  });
}

test('when an endpoint is created, then its secret is stored sealed, never in clear', async (t) => {
  const h = await webhooksHarness(t, sqliteBackend);
  const { auth } = await h.tenant();
  const receiver = await startHookReceiver(t);
  const { secret } = (await post(h, auth, { url: receiver.url })).json<{ secret: string }>();
  const db = new Database((h.database as { path: string }).path, { readonly: true });
  t.after(() => db.close());
  const [row] = db.prepare('SELECT secret FROM webhook_endpoints').all() as { secret: string }[];
  assert.ok(row);
  assert.ok(!row.secret.includes(secret.slice('whsec_'.length)));
  assert.match(row.secret, /^v1\./);
  assert.ok(!h.logs.join('').includes(secret.slice('whsec_'.length)));
});
