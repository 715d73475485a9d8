import assert from 'node:assert/strict';
import { API_KEY_SCOPES } from '../../src/api-keys/api-key-scopes.js';
import { describe, test } from 'node:test';
import { createTestApp, errorBody, tamperedCursor } from '../support/app.js';
import { httpBackends } from '../support/storage.js';
import { dropAuditTable } from './audit-storage.js';

interface AuditEventJson {
  id: number;
  at: string;
  action: string;
  actor: { kind: string; id?: number };
  address?: string;
  target?: { kind: string; id: string };
  details: Record<string, unknown>;
}
interface AuditPageJson {
  data: AuditEventJson[];
  nextCursor: string | null;
}

for (const backend of httpBackends()) {
  describe(`the audit trail over HTTP (${backend.name})`, () => {
    test('when a key cancels through v1 and v2, then each cancel is listed with the key id, the client address and the order, newest first', async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      const { account, auth } = await tenant();
      const [apiKey] = await services.apiKeys.listKeys(account.id);
      assert.ok(apiKey !== undefined);
      await services.orderOperations.createOrder({ accountId: account.id, id: 9007199254740993n, quantity: 1 });
      await services.orderOperations.createOrder({ accountId: account.id, id: 2n, quantity: 1 });

      const v1 = await app.inject({ method: 'DELETE', url: '/v1/store/orders/9007199254740993', headers: auth, remoteAddress: '203.0.113.7' });
      assert.equal(v1.statusCode, 204);
      const v2 = await app.inject({ method: 'DELETE', url: '/v2/store/orders/2', headers: auth, remoteAddress: '2001:db8::9' });
      assert.equal(v2.statusCode, 204);
      // Refused cancels change nothing and record nothing.
      assert.equal((await app.inject({ method: 'DELETE', url: '/v2/store/orders/2', headers: auth })).statusCode, 409);
      assert.equal((await app.inject({ method: 'DELETE', url: '/v1/store/orders/77', headers: auth })).statusCode, 404);

      const response = await app.inject({ method: 'GET', url: '/v2/audit-events', headers: auth });
      assert.equal(response.statusCode, 200);
      assert.match(String(response.headers['content-type']), /^application\/json/);
      const page = response.json<AuditPageJson>();
      assert.equal(page.nextCursor, null);
      const [second, first, created] = page.data;
      assert.deepEqual(
        { ...second, id: undefined, at: undefined },
        { id: undefined, at: undefined, action: 'order_cancelled', actor: { kind: 'key', id: apiKey.id }, address: '2001:db8::9', target: { kind: 'order', id: '2' }, details: {} },
      );
      assert.deepEqual(
        { action: first?.action, actor: first?.actor, address: first?.address, target: first?.target },
        { action: 'order_cancelled', actor: { kind: 'key', id: apiKey.id }, address: '203.0.113.7', target: { kind: 'order', id: '9007199254740993' } },
      );
      // The key's creation (by the test's services: the system) is the oldest entry, and says no secret.
      assert.equal(created?.action, 'authn_token_created');
      assert.deepEqual(created?.actor, { kind: 'system' });
      assert.deepEqual(created?.target, { kind: 'api_key', id: String(apiKey.id) });
      assert.equal(created?.details.scopes, API_KEY_SCOPES.join(' '));
      assert.equal(page.data.length, 3);
      assert.ok((second?.id ?? 0) > (first?.id ?? 0));
      assert.ok(!response.body.includes('so_prod_'), 'no key material in the trail');
    });

    test("when two accounts act, then each lists only its own entries, and another account's cursor is refused", async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      const a = await tenant('A');
      const b = await tenant('B');
      for (let id = 1n; id <= 3n; id++) {
        await services.orderOperations.createOrder({ accountId: a.account.id, id, quantity: 1 });
        assert.equal((await app.inject({ method: 'DELETE', url: `/v2/store/orders/${id}`, headers: a.auth })).statusCode, 204);
      }
      const pageA = (await app.inject({ method: 'GET', url: '/v2/audit-events?limit=2', headers: a.auth })).json<AuditPageJson>();
      assert.deepEqual(pageA.data.map((e) => e.target?.id), ['3', '2']);
      assert.ok(pageA.nextCursor !== null);

      const onlyB = (await app.inject({ method: 'GET', url: '/v2/audit-events', headers: b.auth })).json<AuditPageJson>();
      assert.deepEqual(onlyB.data.map((e) => e.action), ['authn_token_created']);
      assert.deepEqual(onlyB.data[0]?.target?.id, String((await services.apiKeys.listKeys(b.account.id))[0]?.id));

      const stolen = await app.inject({ method: 'GET', url: `/v2/audit-events?cursor=${pageA.nextCursor}`, headers: b.auth });
      assert.equal(stolen.statusCode, 400);
      assert.equal(errorBody(stolen).code, 'invalid_cursor');

      const next = (await app.inject({ method: 'GET', url: `/v2/audit-events?limit=2&cursor=${pageA.nextCursor}`, headers: a.auth })).json<AuditPageJson>();
      assert.deepEqual(next.data.map((e) => e.target?.id), ['1', String((await services.apiKeys.listKeys(a.account.id))[0]?.id)]);
      assert.equal(next.nextCursor, null);
    });

    test('when the cursor is altered or is an orders cursor, or limit or a parameter is wrong, then 400 with the Error record', async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      const { account, auth } = await tenant();
      for (let id = 1n; id <= 3n; id++) await services.orderOperations.createOrder({ accountId: account.id, id, quantity: 1 });
      const orders = (await app.inject({ method: 'GET', url: '/v2/store/orders?limit=1', headers: auth })).json<{ nextCursor: string }>();
      for (const id of [1n, 2n]) await services.orders.cancelOrder(account.id, id);
      const audit = (await app.inject({ method: 'GET', url: '/v2/audit-events?limit=1', headers: auth })).json<AuditPageJson>();
      assert.ok(audit.nextCursor !== null);

      const cases: [string, string, RegExp][] = [
        [`cursor=${orders.nextCursor}`, 'invalid_cursor', /cursor is not valid/],
        [`cursor=${tamperedCursor(audit.nextCursor)}`, 'invalid_cursor', /cursor is not valid/],
        ['limit=0', 'validation_failed', /limit is not valid/],
        ['limit=201', 'validation_failed', /^Query parameter limit is not valid\. Expected: an integer from 1 to 200 \(default 50\)\.$/],
        ['limit=abc', 'validation_failed', /limit/],
        ['status=pending', 'validation_failed', /^Query parameter status is not supported\. Supported: limit, cursor\.$/],
      ];
      for (const [query, code, message] of cases) {
        const response = await app.inject({ method: 'GET', url: `/v2/audit-events?${query}`, headers: auth });
        assert.equal(response.statusCode, 400, query);
        const body = errorBody(response);
        assert.equal(body.code, code, query);
        assert.match(body.message, message, query);
      }
      // And the other way round: an audit cursor is not an orders cursor.
      const crossed = await app.inject({ method: 'GET', url: `/v2/store/orders?cursor=${audit.nextCursor}`, headers: auth });
      assert.equal(crossed.statusCode, 400);
      assert.equal(errorBody(crossed).code, 'invalid_cursor');
    });

    test('when a key lacks audit:read, then 403 insufficient_scope; without a key, 401; a key made without scopes holds audit:read', async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      const { account, auth } = await tenant();
      const { secret } = await services.apiKeys.createKey({ accountId: account.id, scopes: ['orders:read', 'orders:write', 'pets:read', 'messages:write'] });
      const forbidden = await app.inject({ method: 'GET', url: '/v2/audit-events', headers: { authorization: `Bearer ${secret}` } });
      assert.equal(forbidden.statusCode, 403);
      assert.equal(errorBody(forbidden).code, 'insufficient_scope');
      assert.match(String(forbidden.headers['www-authenticate']), /scope="audit:read"/);
      assert.equal((await app.inject({ method: 'GET', url: '/v2/audit-events' })).statusCode, 401);
      assert.equal((await app.inject({ method: 'GET', url: '/v2/audit-events', headers: auth })).statusCode, 200);
    });

    test('when the audit entry cannot be written, then the cancel does not happen: an Error record, the order still pending, no event', async (t) => {
      const { app, services, tenant, database } = await createTestApp(t, backend);
      const { account, auth } = await tenant();
      await services.orderOperations.createOrder({ accountId: account.id, id: 5n, quantity: 1 });
      await services.orderOperations.createOrder({ accountId: account.id, id: 6n, quantity: 1 });
      await dropAuditTable(database);

      for (const url of ['/v1/store/orders/5', '/v2/store/orders/6']) {
        const response = await app.inject({ method: 'DELETE', url, headers: auth });
        assert.equal(response.statusCode, 500, url);
        const body = response.json<{ status: number; code: string }>();
        assert.equal(body.status, 500);
        assert.equal(body.code, 'internal_error');
      }
      const orders = await services.orderOperations.listAllOrders(account.id);
      assert.deepEqual(orders.map((o) => o.status), ['pending', 'pending']);
      const feed = await services.events.listEvents(account.id, { filter: {}, limit: 10 });
      assert.deepEqual(feed.events.map((e) => e.type), ['order.created', 'order.created']);
    });
  });
}
