import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { API_KEY_SCOPES } from '../../src/api-keys/api-key-scopes.js';
import { createTestApp, errorBody, tamperedCursor, type TestApp } from '../support/app.js';
import { httpBackends } from '../support/storage.js';

interface EventRecord {
  id: string;
  type: string;
  createdAt: string;
  data: { order?: { id: number; status: string } };
}

interface Feed {
  data: EventRecord[];
  nextCursor: string;
}

async function feed(app: TestApp['app'], auth: Record<string, string>, query = ''): Promise<Feed> {
  const response = await app.inject({ method: 'GET', url: `/v2/events${query}`, headers: auth });
  assert.equal(response.statusCode, 200, response.body);
  assert.match(String(response.headers['content-type']), /^application\/json/);
  return response.json<Feed>();
}

for (const backend of httpBackends()) {
  describe(`v2 events over HTTP (${backend.name})`, () => {
    test('when orders are created, cancelled (v1 and v2) and shipped, then the feed lists their events oldest first, and GET by id returns each exactly', async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      const { account, auth } = await tenant();
      const other = await tenant();
      await services.orderOperations.createOrder({ accountId: account.id, id: 9223372036854775807n, petId: 9007199254740993n, quantity: 1 });
      await services.orderOperations.createOrder({ accountId: account.id, id: 2n, quantity: 2 });
      await services.orderOperations.createOrder({ accountId: account.id, id: 3n, quantity: 3 });
      await services.orderOperations.createOrder({ accountId: other.account.id, id: 4n, quantity: 1 });
      assert.equal((await app.inject({ method: 'DELETE', url: '/v1/store/orders/2', headers: auth })).statusCode, 204);
      assert.equal((await app.inject({ method: 'DELETE', url: '/v2/store/orders/9223372036854775807', headers: auth })).statusCode, 204);
      await services.orderOperations.shipOrder(3n);

      const response = await app.inject({ method: 'GET', url: '/v2/events', headers: auth });
      assert.equal(response.statusCode, 200);
      const page = response.json<Feed>();
      assert.deepEqual(page.data.map((e) => [e.type, e.data.order?.status]), [
        ['order.created', 'pending'],
        ['order.created', 'pending'],
        ['order.created', 'pending'],
        ['order.cancelled', 'cancelled'],
        ['order.cancelled', 'cancelled'],
        ['order.shipped', 'shipped'],
      ]);
      assert.equal(typeof page.nextCursor, 'string', 'the last page carries a cursor too');
      // int64 ids with every digit, in the feed as everywhere.
      assert.ok(response.body.includes('"order":{"id":9223372036854775807,"status":"pending","complete":false,"petId":9007199254740993,"quantity":1}'));
      for (const event of page.data) {
        assert.match(event.id, /^evt_[0-9a-f]{32}$/);
        assert.match(event.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        const one = await app.inject({ method: 'GET', url: `/v2/events/${event.id}`, headers: auth });
        assert.equal(one.statusCode, 200);
        assert.deepEqual(one.json(), event);
        assert.ok(response.body.includes(one.body), 'the same bytes as in the feed');
      }
      const theirs = await app.inject({ method: 'GET', url: `/v2/events/${page.data[0]?.id ?? ''}`, headers: other.auth });
      assert.equal(theirs.statusCode, 404);
      const missing = await app.inject({ method: 'GET', url: '/v2/events/evt_00000000000000000000000000000000', headers: auth });
      assert.deepEqual([errorBody(theirs), errorBody(missing)].map((e) => e.code), ['event_not_found', 'event_not_found']);
      assert.deepEqual((await feed(app, other.auth)).data.map((e) => e.type), ['order.created']);
    });

    test('when a client walks the feed and resumes from its last cursor, then it sees every event exactly once, including those committed later', async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      const { account, auth } = await tenant();
      for (let id = 1n; id <= 5n; id++) await services.orderOperations.createOrder({ accountId: account.id, id, quantity: 1 });
      const seen: string[] = [];
      let cursor = '';
      const walk = async () => {
        for (;;) {
          const page = await feed(app, auth, `?limit=2${cursor === '' ? '' : `&cursor=${cursor}`}`);
          seen.push(...page.data.map((e) => `${e.type}:${e.data.order?.id}`));
          assert.ok(page.nextCursor.length > 0);
          cursor = page.nextCursor;
          if (page.data.length < 2) return;
        }
      };
      await walk();
      assert.equal(seen.length, 5);
      const caughtUp = await feed(app, auth, `?limit=2&cursor=${cursor}`);
      assert.deepEqual(caughtUp.data, [], 'caught up: nothing new');
      assert.equal(caughtUp.nextCursor, cursor, 'and the cursor stays where it was');
      await services.orders.cancelOrder(account.id, 4n);
      await services.orderOperations.shipOrder(5n);
      await walk();
      await walk();
      assert.deepEqual(seen, ['order.created:1', 'order.created:2', 'order.created:3', 'order.created:4', 'order.created:5', 'order.cancelled:4', 'order.shipped:5']);
    });

    test('when filtering by repeated type and a created range, then only matching events come, and a cursor is bound to its filters and account', async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      const { account, auth } = await tenant();
      const other = await tenant();
      for (let id = 1n; id <= 3n; id++) await services.orderOperations.createOrder({ accountId: account.id, id, quantity: 1 });
      await services.orders.cancelOrder(account.id, 1n);
      await services.orderOperations.shipOrder(2n);
      const typed = await feed(app, auth, '?type=order.shipped&type=order.cancelled');
      assert.deepEqual(typed.data.map((e) => e.type), ['order.cancelled', 'order.shipped']);
      const all = await feed(app, auth);
      const first = all.data[0]?.createdAt ?? '';
      assert.deepEqual((await feed(app, auth, `?createdTo=${encodeURIComponent(first)}`)).data, [], 'createdTo is exclusive');
      assert.equal((await feed(app, auth, `?createdFrom=${encodeURIComponent(first)}`)).data.length, 5);
      assert.equal((await feed(app, auth, '?createdFrom=2000-01-01T00:00:00%2B02:00&createdTo=2999-01-01T00:00:00Z')).data.length, 5);

      const refusals: [string, Record<string, string>, string][] = [
        [`?cursor=${typed.nextCursor}`, auth, 'invalid_cursor'],
        [`?type=order.shipped&type=order.cancelled&cursor=${typed.nextCursor}`, other.auth, 'invalid_cursor'],
        [`?type=order.shipped&type=order.cancelled&cursor=${tamperedCursor(typed.nextCursor)}`, auth, 'invalid_cursor'],
        ['?limit=0', auth, 'validation_failed'],
        ['?limit=501', auth, 'validation_failed'],
        ['?type=order.deleted', auth, 'validation_failed'],
        ['?createdFrom=yesterday', auth, 'validation_failed'],
        ['?createdFrom=2026-01-02T00:00:00Z&createdTo=2026-01-01T00:00:00Z', auth, 'validation_failed'],
        ['?status=pending', auth, 'validation_failed'],
      ];
      for (const [query, headers, code] of refusals) {
        const response = await app.inject({ method: 'GET', url: `/v2/events${query}`, headers });
        assert.equal(response.statusCode, 400, query);
        assert.equal(errorBody(response).code, code, query);
      }
      const orders = await app.inject({ method: 'GET', url: '/v2/store/orders?limit=1', headers: auth });
      const ordersCursor = orders.json<{ nextCursor: string }>().nextCursor;
      const crossed = await app.inject({ method: 'GET', url: `/v2/events?cursor=${ordersCursor}`, headers: auth });
      assert.equal(errorBody(crossed).code, 'invalid_cursor', 'an orders cursor is not an events cursor');
    });

    test('when a key lacks events:read, then the feed answers 403; a key created without scopes holds events:read', async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      const { account } = await tenant();
      const { apiKey } = await services.apiKeys.createKey({ accountId: account.id });
      assert.deepEqual(apiKey.scopes, [...API_KEY_SCOPES]);
      assert.ok(apiKey.scopes.includes('events:read'));
      const { secret } = await services.apiKeys.createKey({ accountId: account.id, scopes: ['orders:read'] });
      for (const url of ['/v2/events', '/v2/events/evt_00000000000000000000000000000000']) {
        const response = await app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${secret}` } });
        assert.equal(response.statusCode, 403);
        assert.equal(errorBody(response).code, 'insufficient_scope');
        assert.match(String(response.headers['www-authenticate']), /scope="events:read"/);
      }
    });
  });
}
